/** Tests run the built package (dist/) through n8n's execution engine: `npm test` builds first. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': [
			'ts-jest',
			{ tsconfig: '<rootDir>/test/tsconfig.json', diagnostics: { warnOnly: false } },
		],
	},
	testTimeout: 60000,
	maxWorkers: 2,
	verbose: false,
};
