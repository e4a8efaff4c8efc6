// The columns kube-apiserver's node printer gives, so `kubectl get nodes` (and -o wide) look as against a real cluster.
import type { KubeObject } from '../../lib/apis/meta.js';
import type { PrinterColumn } from './printer-column.js';
import { ageColumn, field, list, orNone, rec, str } from './builtin-column-cells.js';

function nodeStatus(obj: KubeObject): string {
  const ready = list(field(obj, 'status').conditions).find((c) => c.type === 'Ready');
  const status: string[] = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (field(obj, 'spec').unschedulable === true) status.push('SchedulingDisabled');
  return status.join(',');
}

const roleLabelPrefix = 'node-role.kubernetes.io/';

function nodeRoles(obj: KubeObject): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(obj.metadata.labels ?? {})) {
    if (key.startsWith(roleLabelPrefix) && key.length > roleLabelPrefix.length)
      roles.add(key.slice(roleLabelPrefix.length));
    else if (key === 'kubernetes.io/role' && value !== '') roles.add(value);
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

function nodeAddress(obj: KubeObject, type: string): string {
  return orNone(str(list(field(obj, 'status').addresses).find((a) => a.type === type)?.address));
}

function nodeInfo(obj: KubeObject, key: string): string {
  const info = rec(field(obj, 'status').nodeInfo);
  return str(info[key]);
}

export const nodeColumns: PrinterColumn[] = [
  {
    name: 'Status',
    type: 'string',
    jsonPath: '.status.conditions',
    description: 'The status of the node',
    cell: nodeStatus,
  },
  {
    name: 'Roles',
    type: 'string',
    jsonPath: '.metadata.labels',
    description: 'The roles of the node',
    cell: nodeRoles,
  },
  ageColumn,
  {
    name: 'Version',
    type: 'string',
    jsonPath: '.status.nodeInfo.kubeletVersion',
    description: 'Kubelet Version reported by the node.',
    cell: (o) => nodeInfo(o, 'kubeletVersion'),
  },
  {
    name: 'Internal-IP',
    type: 'string',
    priority: 1,
    jsonPath: '.status.addresses',
    description: "The node's InternalIP address.",
    cell: (o) => nodeAddress(o, 'InternalIP'),
  },
  {
    name: 'External-IP',
    type: 'string',
    priority: 1,
    jsonPath: '.status.addresses',
    description: "The node's ExternalIP address.",
    cell: (o) => nodeAddress(o, 'ExternalIP'),
  },
  {
    name: 'OS-Image',
    type: 'string',
    priority: 1,
    jsonPath: '.status.nodeInfo.osImage',
    description: 'OS Image reported by the node.',
    cell: (o) => orNone(nodeInfo(o, 'osImage')),
  },
  {
    name: 'Kernel-Version',
    type: 'string',
    priority: 1,
    jsonPath: '.status.nodeInfo.kernelVersion',
    description: 'Kernel Version reported by the node.',
    cell: (o) => orNone(nodeInfo(o, 'kernelVersion')),
  },
  {
    name: 'Container-Runtime',
    type: 'string',
    priority: 1,
    jsonPath: '.status.nodeInfo.containerRuntimeVersion',
    description: 'ContainerRuntime Version reported by the node.',
    cell: (o) => orNone(nodeInfo(o, 'containerRuntimeVersion')),
  },
];
