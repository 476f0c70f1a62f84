/**
 * Runs `job(0) … job(count - 1)` with at most `concurrency` running at once, started in index order. A job that
 * throws stops the pool from starting more; the first error is thrown once the running jobs have ended.
 */
export async function pool(
	count: number,
	concurrency: number,
	job: (index: number) => Promise<void>,
): Promise<void> {
	let next = 0;
	let failed = false;
	let first: unknown;
	const worker = async () => {
		while (!failed && next < count) {
			const index = next++;
			try {
				await job(index);
			} catch (error) {
				if (!failed) first = error;
				failed = true;
			}
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
	if (failed) throw first;
}
