#!/usr/bin/env node
// machine-healthcheck: the MachineHealthCheck controller and its mapi_machinehealthcheck_* metrics,
// leader-election id cluster-api-provider-healthcheck-leader, metrics :8083, health :9442.
// Wiring only: flags in, one lib registration function out.
import { pathToFileURL } from 'node:url';
import { addMachineHealthCheckController } from '../lib/index.js';
import { runBinary, type BinarySpec } from './internal/index.js';

export const machineHealthCheckBinary: BinarySpec = {
  name: 'machine-healthcheck',
  description: 'Runs the Machine API MachineHealthCheck controller.',
  defaults: {
    leaderElectionId: 'cluster-api-provider-healthcheck-leader',
    metricsBindAddress: ':8083',
    healthAddr: ':9442',
  },
  register(manager, flags) {
    addMachineHealthCheckController(manager, { maxConcurrentReconciles: flags.maxConcurrentReconciles });
  },
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void runBinary(machineHealthCheckBinary);
}
