/**
 * Quota headers announcing a limit of 0 (a service's plan with no calls, or a header misconfigured): the run after them
 * must not wait without end for a quota that never comes. It ends in bounded time, with an error or a success.
 */
import { type Kind, NODE, runNode, serverOf, useServices } from './setup';

const s = useServices();
/** Far above any wait the headers ask for (1 s), far below a wait without end. */
const LIMIT_MS = 25_000;

const nowSeconds = () => Math.floor(Date.now() / 1000);
const SHAPES: Record<string, () => Record<string, string>> = {
	'X-RateLimit-*, reset in 1 s (delta)': () => ({
		'X-RateLimit-Limit': '0',
		'X-RateLimit-Remaining': '0',
		'X-RateLimit-Reset': '1',
	}),
	'X-RateLimit-*, reset at an epoch second 1 s ahead': () => ({
		'X-RateLimit-Limit': '0',
		'X-RateLimit-Remaining': '0',
		'X-RateLimit-Reset': String(nowSeconds() + 1),
	}),
	'draft-11 RateLimit, q=0': () => ({
		RateLimit: '"default";r=0;t=1',
		'RateLimit-Policy': '"default";q=0;w=1',
	}),
};
const CASES: Array<[Kind, string]> = [
	...Object.keys(SHAPES).map((shape): [Kind, string] => ['museum', shape]),
	['quotes', 'X-RateLimit-*, reset in 1 s (delta)'],
	['trigger', 'draft-11 RateLimit, q=0'],
];

test.each(CASES)(
	'%s, %s on every answer: two runs each end in bounded time',
	async (kind, shape) => {
		// a limit far above what the runs send: only the headers say 0
		serverOf(s, kind).setMode({
			rateLimit: { perSecond: 1000, burst: 1000, headers: SHAPES[shape]() },
		});
		for (const run of [1, 2]) {
			const result = await runNode(s, kind, { options: { maxRetryWait: 5 }, limitMs: LIMIT_MS });
			const error = result.error(NODE);
			if (error) expect({ run, message: error.message }).toMatchObject({ message: /\[item 0\]$/ });
		}
	},
	3 * LIMIT_MS,
);
