export * from './go-duration.js';
export * from './feature-gates.js';
export * from './leader-election-durations.js';
export * from './standard-flags.js';
export * from './manager-from-flags.js';
export * from './run-until-signal.js';
export * from './run-binary.js';
export * from './provider-binary.js';
