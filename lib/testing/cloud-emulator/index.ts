// Cloud-emulator kit: latency, rate limits answering the cloud's own throttling error, injected failures,
// eventual consistency, lost replies and per-action call counters, shared by the EC2, GCE and IBM emulators.
export * from './action-matcher.js';
export * from './call-counters.js';
export * from './emulator-fault.js';
export * from './emulator-knobs.js';
export * from './http-reply.js';
export * from './seeded-random.js';
export * from './visibility-tracker.js';
