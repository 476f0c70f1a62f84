export { TriptychClient } from './client';
export { wait } from './timing';
export { describeFailure } from './errors';
export * from './types';
export * from './services';
