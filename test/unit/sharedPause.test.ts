/**
 * A service's shared pause has an upper bound (nodes/shared/transport/gate and budget), from source, on a mocked
 * clock: a Retry-After of decades cannot shut a service off for every later run of the process. The bound itself
 * cannot be waited out by an engine test; here two days pass in a loop of runs refused every 10 minutes (each of
 * which uses the budget, so it is never forgotten as idle).
 */
import { budgetFor, forgetBudgets } from '../../nodes/shared/transport/budget';
import { Gate, type Turn } from '../../nodes/shared/transport/gate';

const KEY = 'http://127.0.0.1:9 credential-1';
const MINUTE = 60_000;

afterEach(() => {
	jest.restoreAllMocks();
	forgetBudgets();
});

/** A new run's turn (Max Retry Wait 1 s), given up after 3 s of real time (a wait the mocked clock cannot end). */
async function turnOfNewRun(): Promise<{ turn: Turn; gate: Gate } | 'waited'> {
	const stop = new AbortController();
	const gate = new Gate(1, stop.signal, () => KEY);
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<'waited'>(
		(resolve) => (timer = setTimeout(() => resolve('waited'), 3000)),
	);
	const turn = await Promise.race([gate.acquire(1000), late]);
	clearTimeout(timer);
	if (turn === 'waited') stop.abort();
	return turn === 'waited' ? turn : { turn, gate };
}

test('Retry-After: 1000000000 pauses later runs for a bounded time, then one request probes', async () => {
	forgetBudgets();
	let now = Date.now();
	jest.spyOn(Date, 'now').mockImplementation(() => now);
	expect(budgetFor(KEY)).toBeDefined();

	const first = await turnOfNewRun();
	if (first === 'waited' || !first.turn.ok) throw new Error('the first request did not go');
	first.gate.release('pushback', 1_000_000_000_000, true, first.turn.ticket);

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
			next.gate.release('ok', undefined, false, next.turn.ticket);
			probedAfter = minutes;
			break;
		}
	}
	expect({ probedAfter }).toEqual({ probedAfter: expect.any(Number) });

	// the probe was answered: the service is back for every run
	const after = await turnOfNewRun();
	expect(after !== 'waited' && after.turn.ok).toBe(true);
});
