export { TriptychClient } from './client';
export type { DownloadSettings } from './client';
export type { Outcome } from './retry';
export { backoff, parseRetryAfter, wait } from './timing';
export * from './types';
export * from './services';
