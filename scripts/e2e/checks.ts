/** What the end-to-end and browser checks print: a PASS/FAIL line per check with its details, then a summary. */
import { killAll } from './n8n';

export const log = (line: string) => console.log(line);
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function fail(message: string): never {
	throw new Error(message);
}

/** Fails with `message` unless `condition` holds. */
export function ensure(condition: unknown, message: string): asserts condition {
	if (!condition) fail(message);
}

/** Polls `probe` until it returns a value; fails past the timeout or once `server` has exited. */
export async function waitFor<T>(
	what: string,
	timeoutMs: number,
	probe: () => Promise<T | undefined>,
	server?: { exited(): boolean; output(): string },
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (server?.exited())
			fail(`n8n exited while waiting for ${what}:\n${server.output().slice(-3000)}`);
		const value = await probe().catch(() => undefined);
		if (value !== undefined) return value;
		if (Date.now() > deadline) fail(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
		await sleep(500);
	}
}

export type Check = (name: string, body: () => Promise<string[]>) => Promise<boolean>;

/** The checks of one run, grouped (by n8n version in the end-to-end check). */
export class Checks {
	readonly results: Array<{ group: string; name: string; ok: boolean }> = [];
	private readonly started = Date.now();

	constructor(private readonly indent = '') {}

	/** Runs one check: prints PASS with what it verified, or FAIL with why. */
	async run(group: string, name: string, body: () => Promise<string[]>): Promise<boolean> {
		const started = Date.now();
		const why = (error: Error) => String(error?.message ?? error).split('\n');
		const [ok, lines] = await body().then(
			(lines) => [true, lines] as const,
			(error) => [false, why(error).slice(0, 30)] as const,
		);
		this.results.push({ group, name, ok });
		log(`${this.indent}${ok ? 'PASS' : 'FAIL'}  ${name} (${seconds(Date.now() - started)})`);
		for (const line of lines) log(`${this.indent}        ${line}`);
		return ok;
	}

	failed(group?: string): boolean {
		return this.results.some((c) => !c.ok && (group === undefined || c.group === group));
	}

	/** Prints the summary; the exit code: 1 when a check failed or none ran. */
	summary(): number {
		const failed = this.results.filter((c) => !c.ok);
		log('\n=== Summary ===');
		for (const group of new Set(this.results.map((c) => c.group).filter(Boolean))) {
			const own = this.results.filter((c) => c.group === group);
			log(`${group}: ${own.filter((c) => c.ok).length}/${own.length} checks passed`);
		}
		for (const c of failed) log(`FAIL  ${c.group ? `[${c.group}] ` : ''}${c.name}`);
		log(
			`${this.results.length - failed.length} passed, ${failed.length} failed in ${seconds(Date.now() - this.started)}`,
		);
		return failed.length || this.results.length === 0 ? 1 : 0;
	}
}

/** Runs a check script's main and exits with its code, every child process ended. */
export function runMain(main: () => Promise<number>): void {
	main().then(
		(code) => process.exit(code),
		(error) => {
			console.error(error);
			killAll();
			process.exit(1);
		},
	);
}
