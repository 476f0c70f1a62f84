import { applyKey as keyApplied } from './origin';

export { TriptychClient } from './client';
export { MAX_WAIT_MS } from './limiter';
export { MAX_RATE_LIMITED } from './retry';
export { describeFailure } from './errors';
export { excerpt, redactKey } from './redaction';
export { judge, type Judgement } from './answer';
export { targetOf, webAddress } from './origin';
/** The credential's `authenticate`, as a value: a re-export would put a getter on the way of every request */
export const applyKey = keyApplied;
export type { ApiResponse, Failure, RequestSettings } from './types';
