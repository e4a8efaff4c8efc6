// The kit for provider teams and our own tests. Never imported by production code.
export * from './instance-view.js';
