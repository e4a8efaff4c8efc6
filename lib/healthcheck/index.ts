export * from './max-unhealthy.js';
export * from './health.js';
export * from './metrics.js';
export * from './external-remediation.js';
export * from './machinehealthcheck-controller.js';
