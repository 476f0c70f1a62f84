/**
 * A service's shared pause has an upper bound (nodes/shared/transport/limiter), from source, on a mocked clock: a
 * Retry-After of decades cannot shut a service off for every later run of the process. The bound itself cannot be
 * waited out by an engine test; here two days pass in a loop of runs refused every 10 minutes (each of which uses
 * the limiter, so it is never forgotten as idle).
 */
import { Stopper } from '../../nodes/shared/transport/attempt';
import { limiterFor } from '../../nodes/shared/transport/client';
import { forgetLimiters } from '../../nodes/shared/transport/limiter';
import type { Run, Turn } from '../../nodes/shared/transport/types';

const KEY = 'http://127.0.0.1:9 credential-1';
const MINUTE = 60_000;

afterEach(() => {
	jest.restoreAllMocks();
	forgetLimiters();
});

/** A new run's turn (Max Retry Wait 1 s), given up after 3 s of real time (a wait the mocked clock cannot end). */
async function turnOfNewRun(): Promise<{ turn: Turn; run: Run } | 'waited'> {
	const run: Run = { max: 1, stop: new Stopper(), inFlight: 0, queue: [] };
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<'waited'>(
		(resolve) => (timer = setTimeout(() => resolve('waited'), 3000)),
	);
	const turn = await Promise.race([limiterFor(KEY).acquire(run, 1000, 1000), late]);
	clearTimeout(timer);
	if (turn === 'waited') {
		(run.stop as Stopper).stop();
		limiterFor(KEY).leave(run);
	}
	return turn === 'waited' ? turn : { turn, run };
}

test('Retry-After: 1000000000 pauses later runs for a bounded time, then one request probes', async () => {
	forgetLimiters();
	let now = Date.now();
	jest.spyOn(Date, 'now').mockImplementation(() => now);

	const first = await turnOfNewRun();
	if (first === 'waited' || !first.turn.ok) throw new Error('the first request did not go');
	limiterFor(KEY).release(first.run, first.turn.ticket, {
		status: 429,
		pauseMs: 1_000_000_000_000,
	});

	const refused = await turnOfNewRun();
	expect(refused !== 'waited' && refused.turn.ok).toBe(false); // the pause holds, nothing is sent

	let probedAfter: number | undefined;
	for (let minutes = 10; minutes <= 2 * 24 * 60; minutes += 10) {
		now += 10 * MINUTE;
		const next = await turnOfNewRun();
		if (next === 'waited')
			throw new Error(
				`a run ${minutes} min after the pause waited instead of being refused or let through`,
			);
		if (next.turn.ok) {
			limiterFor(KEY).release(next.run, next.turn.ticket, { status: 200 });
			probedAfter = minutes;
			break;
		}
	}
	expect({ probedAfter }).toEqual({ probedAfter: expect.any(Number) });

	// the probe was answered: a minute on, the service is back for every run (the pace has grown again)
	now += MINUTE;
	const after = await turnOfNewRun();
	expect(after !== 'waited' && after.turn.ok).toBe(true);
});
