export * from './common';
export * from './data';
export * from './museum';
export * from './trigger';
export * from './quotes';
export * from './images';
export * from './ratelimit';
export * from './hostile';
