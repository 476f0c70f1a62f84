/**
 * Calls the functions of some modules (TypeScript, loaded from source through tsx) in a worker thread, each call
 * within a deadline. Code that blocks its event loop (a regular expression backtracking over a large text) cannot be
 * interrupted in the test's own thread: here the worker is ended instead, so the test fails in bounded time with a
 * clear error rather than hanging jest. A later call starts a new worker.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
require(workerData.tsx).register();
const fns = Object.assign({}, ...workerData.modules.map((m) => require(m)));
parentPort.on('message', async ({ id, fn, args }) => {
	try {
		parentPort.postMessage({ id, value: await fns[fn](...args) });
	} catch (error) {
		parentPort.postMessage({ id, error: String((error && error.stack) || error) });
	}
});
parentPort.postMessage({ ready: true });
`;

type Reply = { ready?: true; id?: number; value?: unknown; error?: string };

export interface Isolated {
	/** `fn(...args)` in the worker; rejects when it has not returned within `ms` (the worker is then ended). */
	call<T = unknown>(fn: string, args: unknown[], ms?: number): Promise<T>;
	close(): Promise<void>;
}

/** `modules`: paths from the repository root; `deadlineMs`: the default bound of a call. */
export function isolated(modules: string[], deadlineMs: number, startMs = 60_000): Isolated {
	const root = path.resolve(__dirname, '../..');
	let worker: Promise<Worker> | undefined;
	let calls = 0;
	const pending = new Map<number, (reply: Reply) => void>();

	const start = () =>
		new Promise<Worker>((resolve, reject) => {
			const w = new Worker(WORKER, {
				eval: true,
				workerData: {
					tsx: require.resolve('tsx/cjs/api'),
					modules: modules.map((m) => path.join(root, m)),
				},
			});
			const timer = setTimeout(() => {
				void w.terminate();
				reject(new Error(`the worker did not load ${modules.join(', ')} within ${startMs} ms`));
			}, startMs);
			w.on('message', (reply: Reply) => {
				if (reply.ready) {
					clearTimeout(timer);
					resolve(w);
				} else pending.get(reply.id!)?.(reply);
			});
			w.on('error', (error) => {
				clearTimeout(timer);
				reject(error);
			});
		});

	return {
		async call<T>(fn: string, args: unknown[], ms = deadlineMs): Promise<T> {
			worker ??= start();
			const w = await worker;
			const id = ++calls;
			const reply = await new Promise<Reply | undefined>((resolve) => {
				const timer = setTimeout(() => resolve(undefined), ms);
				pending.set(id, (r) => (clearTimeout(timer), resolve(r)));
				w.postMessage({ id, fn, args });
			});
			pending.delete(id);
			if (!reply) {
				worker = undefined;
				await w.terminate();
				throw new Error(
					`${fn} did not return within ${ms} ms: its thread was blocked (ended by the test)`,
				);
			}
			if (reply.error !== undefined) throw new Error(`${fn} threw: ${reply.error}`);
			return reply.value as T;
		},
		async close() {
			const w = worker;
			worker = undefined;
			if (w) await (await w.catch(() => undefined))?.terminate();
		},
	};
}
