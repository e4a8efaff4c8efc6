// Shared by the printing tests: a fixed clock and a Machine with the fields printer columns read.
import type { KubeObject } from '../../../lib/apis/meta.js';

export const now = Date.parse('2024-05-01T12:00:00Z');
export const ago = (ms: number) => new Date(now - ms).toISOString();
export const minute = 60_000;
export const hour = 60 * minute;
export const day = 24 * hour;

export const machine = {
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'Machine',
  metadata: {
    name: 'm-1',
    namespace: 'openshift-machine-api',
    creationTimestamp: ago(5 * minute),
    annotations: { 'machine.openshift.io/instance-state': 'running' },
    labels: { 'machine.openshift.io/instance-type': 'm5.large' },
  },
  spec: { providerID: 'aws:///us-east-1a/i-1' },
  status: {
    phase: 'Running',
    nodeRef: { name: 'node-1' },
    conditions: [
      { type: 'Drainable', status: 'True' },
      { type: 'Ready', status: 'False', reason: 'Booting' },
    ],
    addresses: [
      { type: 'InternalIP', address: '10.0.0.1' },
      { type: 'InternalDNS', address: 'ip-10-0-0-1' },
    ],
    replicas: 3,
  },
} as KubeObject;
