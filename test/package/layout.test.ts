/** Source layout: small product files; test code never imports scripts/. */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

function files(dir: string, ending: string): string[] {
	const out: string[] = [];
	for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
		const rel = path.join(dir, entry.name);
		if (entry.isDirectory()) out.push(...files(rel, ending));
		else if (entry.name.endsWith(ending)) out.push(rel);
	}
	return out;
}

test('no product file is over 300 lines', () => {
	const long = [...files('nodes', '.ts'), ...files('credentials', '.ts')]
		.map((file) => ({
			file,
			lines: fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').length,
		}))
		.filter(({ lines }) => lines > 300);
	expect(long).toEqual([]);
});

test('test code imports nothing from scripts/', () => {
	const offending = files('test', '.ts').filter((file) =>
		/from\s+['"](\.\.\/)+scripts\//.test(fs.readFileSync(path.join(ROOT, file), 'utf8')),
	);
	expect(offending).toEqual([]);
});
