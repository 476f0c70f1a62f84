/** Runs `job(0 … count - 1)`, `concurrency` at once in order; a throw starts no more and is rethrown once all end. */
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
