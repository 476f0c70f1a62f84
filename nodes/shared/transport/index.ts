export { TriptychClient } from './client';
export type { DownloadSettings } from './client';
export type { Outcome } from './retry';
export { backoff, parseRetryAfter, wait } from './timing';
export { describeFailure } from './errors';
export * from './types';
export * from './services';
