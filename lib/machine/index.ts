export * from './actuator.js';
export * from './errors.js';
