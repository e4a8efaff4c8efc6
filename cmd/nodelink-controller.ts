#!/usr/bin/env node
// nodelink-controller: links Nodes and Machines (nodeRef, node labels/annotations/taints),
// leader-election id cluster-api-provider-nodelink-leader; metrics and health servers off by default,
// as in the reference deployment.
// Wiring only: flags in, one lib registration function out.
import { pathToFileURL } from 'node:url';
import { addNodeLinkController } from '../lib/index.js';
import { runBinary, type BinarySpec } from './internal/index.js';

export const nodeLinkControllerBinary: BinarySpec = {
  name: 'nodelink-controller',
  description: 'Runs the Machine API NodeLink controller.',
  defaults: { leaderElectionId: 'cluster-api-provider-nodelink-leader', metricsBindAddress: '0', healthAddr: '' },
  register(manager, flags) {
    addNodeLinkController(manager, { maxConcurrentReconciles: flags.maxConcurrentReconciles });
  },
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void runBinary(nodeLinkControllerBinary);
}
