// The arithmetic of a token bucket, as the pace fits one to what a service accepted and refused.

/**
 * The lowest refill rate (per second) under which a token bucket of `burst` tokens, empty at `start`, accepts a
 * request at each of the times `accepted` (ms, ascending). Binary search on a simulation of the bucket: more refill
 * never refuses more. 0 when there is nothing to learn from, or when no rate fits (the bucket is larger).
 */
export function lowestRateThatAccepts(accepted: number[], start: number, burst: number): number {
	if (!accepted.length) return 0;
	const capacity = Math.max(1, burst);
	const accepts = (rate: number) => {
		let tokens = 0;
		let previous = start;
		for (const at of accepted) {
			tokens = Math.min(capacity, tokens + (rate * Math.max(0, at - previous)) / 1000);
			previous = Math.max(previous, at);
			// a little slack: the service counts arrivals, we know send times
			if (tokens < 0.9) return false;
			tokens -= 1;
		}
		return true;
	};
	let low = 0;
	let high = 1;
	while (!accepts(high)) {
		if (high >= 1e6) return 0;
		high *= 2;
	}
	for (let step = 0; step < 40; step++) {
		const middle = (low + high) / 2;
		if (accepts(middle)) high = middle;
		else low = middle;
	}
	return high;
}

/**
 * The highest refill rate (per second) under which a token bucket of `burst` tokens, empty at `start`, after the
 * requests at `accepted`, has no token left at `refused`: the service gives at most this. Infinity without a bound.
 */
export function highestRateThatRefuses(
	accepted: number[],
	start: number,
	refused: number,
	burst: number,
): number {
	const capacity = Math.max(1, burst);
	const refuses = (rate: number) => {
		let tokens = 0;
		let previous = start;
		for (const at of [...accepted, refused]) {
			tokens = Math.min(capacity, tokens + (rate * Math.max(0, at - previous)) / 1000);
			previous = Math.max(previous, at);
			if (at === refused) break;
			tokens = Math.max(0, tokens - 1);
		}
		return tokens < 1;
	};
	if (refuses(1e6)) return Infinity;
	let low = 0;
	let high = 1e6;
	for (let step = 0; step < 60; step++) {
		const middle = (low + high) / 2;
		if (refuses(middle)) low = middle;
		else high = middle;
	}
	return low;
}
