/** Download Images against a hostile image host: too large, gzip bomb, trickle. */
import { MIB, gzipBomb } from '../servers';
import { FAST, LATE, NODE, pageLinking, rssDuring, runNode, useServices } from './setup';

const s = useServices(() => gzipBomb(256 * MIB, 'png'));
/** The museum's next answer: one record linking `url`. */
const linkImage = (url: string) => s.museum.fail(pageLinking(url));

test('an image larger than Max Image Size: refused, one request, no key sent', async () => {
	const url = `${s.images.url}/images/huge-1.png`;
	linkImage(url);
	const result = await runNode(s, 'museum', {
		options: FAST,
		params: { downloadImages: true, maxImageSize: 2 },
	});
	expect(result.error(NODE)!.message).toBe(
		`Could not download the image of object 1 from ${url}: the image host's answer is larger than the Max Image Size (2 MB); it was not read further [item 0]`,
	);
	expect(s.images.requests).toHaveLength(1);
	expect(s.images.authorizationSeen).toBe(false);
});

test('a gzip-bombed image (256 MiB inflated): refused at the default 25 MB, one request, memory bounded', async () => {
	const url = `${s.images.url}/images/bomb-1.png`;
	linkImage(url);
	const { value: result, peakGrowth } = await rssDuring(() =>
		runNode(s, 'museum', { options: FAST, params: { downloadImages: true } }),
	);
	expect(result.error(NODE)!.message).toBe(
		`Could not download the image of object 1 from ${url}: the image host's answer is larger than the Max Image Size (25 MB); it was not read further [item 0]`,
	);
	expect(s.images.requests).toHaveLength(1);
	expect(peakGrowth).toBeLessThan(200 * MIB);
	expect(result.ms).toBeLessThan(5000 + LATE);
});

test('a gzip-bombed image as a queued fault, with a declared oversized image behind it', async () => {
	const url = `${s.images.url}/images/7.png`;
	linkImage(url);
	s.images.fail({ kind: 'gzipBomb', inflatedBytes: 256 * MIB, contentType: 'image/png' });
	const result = await runNode(s, 'museum', { options: FAST, params: { downloadImages: true } });
	expect(result.error(NODE)!.message).toContain(
		"the image host's answer is larger than the Max Image Size (25 MB); it was not read further",
	);
	expect(s.images.requests).toHaveLength(1);

	s.reset();
	linkImage(url);
	s.images.fail({ kind: 'oversized', bytes: 30 * MIB, contentType: 'image/png' });
	const declared = await runNode(s, 'museum', { options: FAST, params: { downloadImages: true } });
	expect(declared.error(NODE)!.message).toContain(
		"the image host's answer is larger than the Max Image Size (25 MB); it was not read further",
	);
	expect(s.images.requests).toHaveLength(1);
	expect(declared.ms).toBeLessThan(3000 + LATE);
});

// Without the key, n8n hands the attempt's abort signal to its HTTP client, which destroys the body first:
// the node must still report the real reason (the deadline or Stop), not a broken transfer.
test('an image that trickles: Timeout covers the download (and says so)', async () => {
	const url = `${s.images.url}/images/7.png`;
	linkImage(url);
	s.images.fail({ kind: 'trickle', intervalMs: 50 });
	const result = await runNode(s, 'museum', {
		options: { ...FAST, timeout: 1000, maxAttempts: 1 },
		params: { downloadImages: true },
	});
	expect(result.error(NODE)!.message).toBe(
		`Could not download the image of object 1 from ${url}: the image host did not answer in full within the Timeout (1 s) [item 0]`,
	);
	expect(result.ms).toBeLessThan(1000 + LATE);
	expect(s.images.requests).toHaveLength(1);
});
