// The spot/preemption termination handler's cloud-independent logic: the Terminating Node condition, the
// notice-source port each cloud implements, and the poller that ties them together.
export * from './terminating-condition.js';
export * from './termination-notice.js';
export * from './metadata-request.js';
export * from './node-terminating-writer.js';
export * from './termination-handler.js';
