export * from './clock.js';
export * from './logger.js';
export * from './types.js';
