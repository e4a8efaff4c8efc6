export * from './resources.js';
export * from './kube-client.js';
export * from './errors.js';
export * from './event-recorder.js';
