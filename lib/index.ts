// The public API of the library: providers and cmd/ import only this. The simulation (sim/) is never part of it.
export * from './base/index.js';
export * from './apis/index.js';
export * from './client/index.js';
export * from './runtime/index.js';
export * from './machine/index.js';
export * from './nodelink/index.js';
export * from './machineset/index.js';
export * from './healthcheck/index.js';
export * from './cloud/index.js';
export * from './termination/index.js';
export * from './admission/index.js';
