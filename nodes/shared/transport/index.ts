export { TriptychClient } from './client';
export { wait } from './timing';
export { ANNOUNCED_WAIT_MS, MAX_RATE_LIMITED } from './retry';
export { describeFailure, excerpt, redactKey } from './errors';
export { judge, type Judgement } from './answer';
export { applyKey, baseOf, baseUrlProblem, webAddress } from './origin';
export * from './types';
export * from './services';
