// The cloud-agnostic kit every provider builds on: providerSpec field reading with field paths, client-side
// rate limiting, batched look-ups, expiring caches and provider-status conditions.
export * from './spec-reader.js';
export * from './spec-rules.js';
export * from './rate-limiter.js';
export * from './adaptive-rate.js';
export * from './describe-batcher.js';
export * from './listing-snapshot.js';
export * from './call-hooks.js';
export * from './ttl-cache.js';
export * from './promise-cache.js';
export * from './provider-condition.js';
export * from './refreshing-cache.js';
export * from './spec-issues.js';
export * from './secret-reader.js';
export * from './referenced-secret.js';
export * from './clients-by-credentials.js';
export * from './machine-labels.js';
export * from './secret-value.js';
export * from './user-data-secret.js';
export * from './launch-ledger.js';
export * from './booting-view.js';
export * from './termination-follower.js';
export * from './delete-guard.js';
export * from './no-proxy.js';
export * from './outbound-http.js';
export * from './outbound-http-errors.js';
