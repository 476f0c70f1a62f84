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
	let failure: { error: unknown } | undefined;
	const worker = async () => {
		while (!failure && next < count) {
			try {
				await job(next++);
			} catch (error) {
				failure ??= { error };
			}
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
	if (failure) throw failure.error;
}
