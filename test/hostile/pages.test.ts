/**
 * Error pages a broken proxy may send: large, and made of what an excerpt's patterns look for (`<` with no `>`, a
 * `<title>` or `<script` never closed). Reading them must take a linear pass, not one per character: the error
 * arrives quickly. The runs happen in a worker thread (pages.ts) that the test ends at the deadline.
 */
import { isolated } from '../unit/isolated';

const KB = 1000;
/** Far above a linear pass over 1 MB on a loaded machine, far below a quadratic one (minutes to hours). */
const DEADLINE_MS = 15_000;
const worker = isolated(['test/hostile/pages.ts'], DEADLINE_MS, 90_000);
afterAll(() => worker.close());

type Outcome = { ms: number; requests: number; message?: string; description?: string };

test('control: a small page of the same kind gives its error in the worker', async () => {
	const outcome = await worker.call<Outcome>('runAgainstPage', ['<title>', 1 * KB]);
	expect(outcome).toMatchObject({
		requests: 1,
		message: expect.stringMatching(/502.*\[item 0\]$/),
	});
}, 150_000);

describe('a large error page of unclosed tags: the error arrives quickly', () => {
	test.each([
		['"<" repeated', '<', 200 * KB],
		['"<" repeated', '<', 1000 * KB],
		['"<title>" never closed', '<title>', 1000 * KB],
		['"<script" never closed', '<script', 200 * KB],
		['"<script" never closed', '<script', 1000 * KB],
	])(
		'%s (%j), %i bytes',
		async (_name, pattern, bytes) => {
			const outcome = await worker.call<Outcome>('runAgainstPage', [pattern, bytes]);
			expect(outcome.requests).toBe(1);
			expect(outcome.message).toMatch(/502/);
			expect(outcome.message).toMatch(/\[item 0\]$/);
		},
		150_000,
	);
});
