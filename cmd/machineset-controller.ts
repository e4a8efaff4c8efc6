#!/usr/bin/env node
// machineset-controller: the MachineSet controller and the operator collector metrics (mapi_machine_*,
// mapi_machineset_*), leader-election id cluster-api-provider-machineset-leader, metrics :8082, health :9441.
// Wiring only: flags in, lib registration functions out. It takes --tls-min-version/--tls-cipher-suites from
// the cluster's TLS profile as the operator passes them (checked at start); admission webhooks, which those
// settings are for, are not served by this binary yet.
import { pathToFileURL } from 'node:url';
import { addMachineCollector, addMachineSetController } from '../lib/index.js';
import { addTlsFlags, readTlsFlags, runBinary, type BinarySpec } from './internal/index.js';

export const machineSetControllerBinary: BinarySpec = {
  name: 'machineset-controller',
  description: 'Runs the Machine API MachineSet controller and the machine/machineset collector metrics.',
  defaults: { leaderElectionId: 'cluster-api-provider-machineset-leader', metricsBindAddress: ':8082', healthAddr: ':9441' },
  flags: addTlsFlags,
  register(manager, flags, opts, wiring) {
    wiring.logger.debug('TLS settings for served endpoints', { tls: readTlsFlags(opts) }, 2);
    addMachineSetController(manager, { maxConcurrentReconciles: flags.maxConcurrentReconciles, featureGates: flags.featureGates });
    addMachineCollector(manager);
  },
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void runBinary(machineSetControllerBinary);
}
