/** The run's one timer for time limits (nodes/shared/transport/deadlines), from source, on real time. */
import { Deadlines } from '../../nodes/shared/transport/deadlines';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Deadlines', () => {
	test('a time limit fires once it has passed, not before; one cleared in time never fires', async () => {
		const deadlines = new Deadlines();
		const fired: string[] = [];
		const started = performance.now();
		let firedAt = 0;
		deadlines.add(500, () => {
			fired.push('a');
			firedAt = performance.now() - started;
		});
		const clearB = deadlines.add(500, () => fired.push('b'));
		await sleep(20);
		clearB();
		expect(fired).toEqual([]);
		// bounds a loaded machine keeps: not before the limit, and long before ten times it
		while (!fired.length && performance.now() - started < 5000) await sleep(20);
		expect(fired).toEqual(['a']);
		expect(firedAt).toBeGreaterThanOrEqual(499);
		expect(firedAt).toBeLessThan(5000);
		expect(deadlines.pending).toBe(0);
		deadlines.close();
	});

	test('a shorter limit added after a longer one still fires on time', async () => {
		const deadlines = new Deadlines();
		const fired: string[] = [];
		deadlines.add(300, () => fired.push('long'));
		deadlines.add(30, () => fired.push('short'));
		await sleep(80);
		expect(fired).toEqual(['short']);
		await sleep(300);
		expect(fired).toEqual(['short', 'long']);
		deadlines.close();
	});

	test('limits added while the timer waits are each kept: after the first fires, the timer moves to the next', async () => {
		const deadlines = new Deadlines();
		const fired: number[] = [];
		for (let i = 0; i < 5; i++) {
			deadlines.add(40, () => fired.push(i));
			await sleep(15);
		}
		// the first at ~40 ms, the last at ~100 ms: by now (~75 ms) the first three or so
		expect(fired.length).toBeGreaterThanOrEqual(1);
		expect(fired.length).toBeLessThan(5);
		await sleep(80);
		expect(fired).toEqual([0, 1, 2, 3, 4]);
		deadlines.close();
	});

	test('a thousand cleared limits leave nothing pending, and close() ends the one wait', async () => {
		const deadlines = new Deadlines();
		let fired = 0;
		for (let i = 0; i < 1000; i++) deadlines.add(30_000, () => fired++)();
		expect(deadlines.pending).toBe(0);
		deadlines.close();
		// a limit after close() works as before (close only ends the waits under way)
		deadlines.add(20, () => fired++);
		await sleep(60);
		expect(fired).toBe(1);
		deadlines.close();
	});

	test('close() keeps the waits while a limit is still pending', async () => {
		const deadlines = new Deadlines();
		let fired = 0;
		deadlines.add(30, () => fired++);
		deadlines.close();
		await sleep(70);
		expect(fired).toBe(1);
	});
});
