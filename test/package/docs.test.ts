/** Documentation links lead to a file that exists and, with a #fragment, to a heading. */
import fs from 'node:fs';
import path from 'node:path';

import { TriptychApi } from '../../credentials/TriptychApi.credentials';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const REPO = JSON.parse(read('package.json')).repository.url.replace(
	/^git\+|\.git$/g,
	'',
) as string;
/** The main branch's files as served to npmjs.com, which shows the README but has no docs/ folder. */
const RAW = `${REPO.replace('https://github.com/', 'https://raw.githubusercontent.com/')}/main/`;

/** GitHub's anchors for a Markdown file's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(file: string): string[] {
	const count = new Map<string, number>();
	return [
		...read(file)
			.replace(/^```[\s\S]*?^```/gm, '')
			.matchAll(/^#{1,6} +(.+?) *$/gm),
	].map(([, heading]) => {
		const slug = heading
			.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
			.toLowerCase()
			.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
			.replace(/ /g, '-');
		const n = count.get(slug) ?? 0;
		count.set(slug, n + 1);
		return n ? `${slug}-${n}` : slug;
	});
}

/** What is wrong with a link (found in `from`), or '' when it points at an existing file and heading. */
function problem(link: string, from: string): string {
	const [address, fragment] = link.split('#');
	let file: string;
	if (address.startsWith(RAW)) {
		file = address.slice(RAW.length);
	} else if (address.startsWith(REPO)) {
		const rest = address.slice(REPO.length);
		file = /^(\?tab=readme-ov-file)?$/.test(rest)
			? 'README.md'
			: rest.replace(/^\/blob\/main\//, '');
		if (file === rest) return `${link}: not a file of the main branch`;
	} else if (/^[a-z]+:/.test(address)) {
		return from.endsWith('.md') ? '' : `${link}: not a page of ${REPO}`;
	} else {
		file = address ? path.posix.join(path.posix.dirname(from), address) : from;
	}
	if (!fs.existsSync(path.join(ROOT, file))) return `${link} (in ${from}): no file ${file}`;
	if (fragment !== undefined && !anchors(file).includes(fragment))
		return `${link} (in ${from}): no heading #${fragment} in ${file}`;
	return '';
}

const markdown = [
	'README.md',
	...fs
		.readdirSync(path.join(ROOT, 'docs'))
		.filter((f) => f.endsWith('.md'))
		.map((f) => `docs/${f}`),
];

test.each([
	...fs
		.readdirSync(path.join(ROOT, 'nodes'))
		.filter((dir) => fs.existsSync(path.join(ROOT, 'nodes', dir, `${dir}.node.json`)))
		.map((dir) => `nodes/${dir}/${dir}.node.json`),
	'credentials',
])('%s links to headings that exist', (source) => {
	const links =
		source === 'credentials'
			? [new TriptychApi().documentationUrl]
			: Object.values(JSON.parse(read(source)).resources as Record<string, Array<{ url: string }>>)
					.flat()
					.map(({ url }) => url);
	expect(links.length).toBeGreaterThan(0);
	expect(links.map((link) => problem(link, source)).filter(Boolean)).toEqual([]);
});

test('README images come from the repository by address, so npmjs.com shows them too', () => {
	const images = [...read('README.md').matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map(([, src]) => src);
	expect(images.length).toBeGreaterThan(0);
	expect(images.filter((src) => !src.startsWith(RAW))).toEqual([]);
});

test.each(markdown)('%s: every relative link points at a file and heading that exist', (file) => {
	const links = [...read(file).matchAll(/\]\(([^)\s]+)\)/g)].map(([, link]) => link);
	expect(links.map((link) => problem(link, file)).filter(Boolean)).toEqual([]);
});

test('docs/performance.md stays within 1,000 words (as wc -w counts them): how the pace works, not its history', () => {
	expect(read('docs/performance.md').split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(1000);
});
