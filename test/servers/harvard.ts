/**
 * The Harvard Art Museums API's GET /object: the key only as the `apikey` query parameter (a Bearer header alone,
 * or a wrong key, gets 401), `size` (default 10, at most 100) and 1-based `page`, `q` and the named filters,
 * answers {info: {totalrecordsperquery, totalrecords, pages, page, next?, prev?, responsetime}, records} whose
 * next/prev links are full URLs carrying the apikey; mode `shape: 'envelope'` wraps it in {status, data, message}.
 */
import { loadMuseumRecords } from './data';
import { type MuseumServer, type MuseumServerOptions, startMuseumServer } from './museum';

export type HarvardServerOptions = Omit<
	MuseumServerOptions,
	'harvard' | 'requireKey' | 'records'
> & {
	/** Default: the real open data when present (at most 500 records), else the fixture. */
	records?: MuseumServerOptions['records'];
};

/** Harvard's images live on a host of their own: without an image host given, the records point there. */
const IMAGE_HOST = 'https://nrs.harvard.edu/urn-3:HUAM';

export async function startHarvardServer(
	options: HarvardServerOptions = {},
): Promise<MuseumServer> {
	const records = options.records ?? loadMuseumRecords({ source: 'auto', max: 500 });
	const imageBaseUrl = options.imageBaseUrl ?? IMAGE_HOST;
	return await startMuseumServer({ ...options, records, imageBaseUrl, harvard: true });
}
