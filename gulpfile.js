/**
 * Classic n8n community-node gulp task, kept for builds without n8n's own tool: `npm run build:icons` copies the
 * node and credential icons (SVG/PNG) into dist/, next to the compiled files that reference them.
 * `npm run build` (n8n-node build) does the same itself, so this is only needed after a plain `tsc`.
 * The output folder can be changed with TRIPTYCH_ICONS_DEST (the tests use a temporary folder).
 */
const path = require('path');
const { parallel, src, dest } = require('gulp');

function copy(glob, folder) {
	const task = () =>
		// encoding: false keeps PNG bytes intact (gulp 5 reads text by default)
		src(glob, { encoding: false, allowEmpty: true }).pipe(
			dest(path.join(process.env.TRIPTYCH_ICONS_DEST || 'dist', folder)),
		);
	task.displayName = `copy ${glob}`;
	return task;
}

exports['build:icons'] = parallel(
	copy('nodes/**/*.{png,svg}', 'nodes'),
	copy('icons/**/*.{png,svg}', 'icons'),
	copy('credentials/**/*.{png,svg}', 'credentials'),
);
