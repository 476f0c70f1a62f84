/** A style value this version does not know (a credential saved by another version): no request, a clear error. */
import { testCredential, useServer } from '../harness/engine';
import { runSearch } from '../museum/setup';
import { generateMuseumRecords, startHarvardServer } from '../servers';

const harvard = useServer(() =>
	startHarvardServer({ apiKey: 'museum-key-1', records: generateMuseumRecords(5) }),
);
const MESSAGE =
	'The Museum API (Generic or Harvard Art Museums API) in the Triptych API credentials holds an unknown value, "harvardV2": choose one of these.';

test('the credential Test names the field and sends nothing', async () => {
	const result = await testCredential({
		apiKey: 'museum-key-1',
		museumUrl: harvard.url,
		museumApi: 'harvardV2',
	});
	expect(result).toEqual({ status: 'Error', message: MESSAGE });
	expect(harvard.requests).toHaveLength(0);
});

test('the node stops before any request with the same words', async () => {
	const result = await runSearch(
		{ q: 'a' },
		{ museumUrl: harvard.url, credentials: { museumApi: 'harvardV2' } },
	);
	expect(result.workflowError?.description ?? result.workflowError?.message).toContain(MESSAGE);
	expect(harvard.requests).toHaveLength(0);
});
