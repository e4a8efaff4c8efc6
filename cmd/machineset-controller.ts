#!/usr/bin/env node
// machineset-controller: the MachineSet controller, the operator collector metrics (mapi_machine_*,
// mapi_machineset_*) and the Machine and MachineSet admission webhooks, leader-election id
// cluster-api-provider-machineset-leader, metrics :8082, health :9441, webhooks :8443 (HTTPS, certificate from
// --webhook-cert-dir, reloaded when it rotates, with the cluster's TLS profile from --tls-min-version and
// --tls-cipher-suites). The webhooks serve on every replica; the controllers run on the leader.
// Wiring only: flags in, lib registration functions out.
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { addMachineCollector, addMachineSetController } from '../lib/index.js';
import {
  addTlsFlags,
  addWebhookFlags,
  readTlsFlags,
  readWebhookFlags,
  runBinary,
  serveAdmissionWebhooks,
  type BinarySpec,
} from './internal/index.js';

export const machineSetControllerBinary: BinarySpec = {
  name: 'machineset-controller',
  description:
    'Runs the Machine API MachineSet controller, the machine/machineset collector metrics and the Machine/MachineSet admission webhooks.',
  defaults: {
    leaderElectionId: 'cluster-api-provider-machineset-leader',
    metricsBindAddress: ':8082',
    healthAddr: ':9441',
  },
  flags: (cmd: Command) => addWebhookFlags(addTlsFlags(cmd)),
  async register(manager, flags, opts, wiring) {
    addMachineSetController(manager, {
      maxConcurrentReconciles: flags.maxConcurrentReconciles,
      featureGates: flags.featureGates,
    });
    addMachineCollector(manager);
    const webhook = readWebhookFlags(opts);
    if (!webhook.enabled) {
      wiring.logger.info('admission webhooks disabled (--webhook-enabled=false)');
      return;
    }
    await serveAdmissionWebhooks(manager, wiring, {
      webhook,
      tls: readTlsFlags(opts),
      featureGates: flags.featureGates,
    });
  },
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void runBinary(machineSetControllerBinary);
}
