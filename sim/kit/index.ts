// The kit for provider teams and our own tests. Never imported by production code.
export * from './instance-view.js';
export * from './cloud-emulator/index.js';
export * from './fake-actuator.js';
export * from './kubelet-simulator.js';
export * from './conformance.js';
export * from './test-env.js';
export * from './provider-test-bed.js';
export * from './provider-fixtures.js';
export * from './missing-secret-scenario.js';
export * from './oversize-user-data-scenario.js';
export * from './refused-credentials-scenario.js';
export * from './capacity-scenario.js';
export { echoContext } from './echo-context.js';
export * from './capacity-fallback-scenario.js';
