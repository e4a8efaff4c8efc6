export * from './meta.js';
export * from './core.js';
export * from './machine-types.js';
export * from './constants.js';
