// Cloud-emulator kit: latency, rate limits answering the cloud's own throttling error, injected failures,
// eventual consistency, lost replies and per-action call counters, plus the plumbing every emulator shares
// (HTTP envelope, loopback server, lifecycle timers, change listeners, world snapshots), used by the EC2, GCE
// and IBM emulators.
export * from './action-matcher.js';
export * from './admin-server.js';
export * from './call-counters.js';
export * from './change-listeners.js';
export * from './emulated-world-state.js';
export * from './emulator-fault.js';
export * from './emulator-handle.js';
export * from './emulator-knobs.js';
export * from './emulator-shutdown.js';
export * from './http-envelope.js';
export * from './http-reply.js';
export * from './issued-id-serial.js';
export * from './loopback-server.js';
export * from './seeded-random.js';
export * from './state-snapshot.js';
export * from './transition-scheduler.js';
export * from './visibility-tracker.js';
export * from './instance-metadata-listeners.js';
export * from './capacity-table.js';
export * from './capacity-admin-routes.js';
