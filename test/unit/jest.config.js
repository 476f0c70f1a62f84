/**
 * Unit tests of pure functions, run FROM SOURCE (nodes/**.ts): no build, no n8n engine, no servers.
 * `npx jest -c test/unit/jest.config.js` (a few seconds). Each file is transpiled on its own (no type check here:
 * `npm run build` and the main suite type-check the same sources).
 */
module.exports = {
	rootDir: '../..',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/unit'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/unit/tsconfig.json' }],
	},
	testTimeout: 10000,
	verbose: false,
};
