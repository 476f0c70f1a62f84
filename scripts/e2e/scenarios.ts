/** The scenarios live with the tests (test/scenarios.ts): scripts import from test/, never the other way. */
export * from '../../test/scenarios';
