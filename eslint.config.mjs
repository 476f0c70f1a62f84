// n8n's own lint configuration with n8n Cloud's rules (`config`, not `configWithoutCloudSupport`), applied
// unchanged to everything that ships: nodes/, credentials/ and package.json.
// The only addition ignores the development tooling (tests, scripts, examples), which needs what the Cloud
// rules forbid in shipped code (node:http, process, timers). Because this file differs from the template,
// package.json sets "strict": false; see docs/development.md, "Lint and strict mode".
import { globalIgnores } from 'eslint/config';
import { config } from '@n8n/node-cli/eslint';

export default [
	globalIgnores([
		'test/**',
		'scripts/**',
		'examples/**',
		'coverage/**',
		'.ci/**',
		'.tmp/**',
		'.n8n-test/**',
	]),
	...config,
];
