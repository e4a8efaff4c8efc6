export * from './clock.js';
export * from './real-clock.js';
export * from './fake-clock.js';
export * from './logger.js';
export * from './json-logger.js';
export * from './token-bucket.js';
export * from './abortable.js';
export * from './linked-abort.js';
