// The columns kube-apiserver's own printers give the built-in kinds we serve, so `kubectl get nodes` or
// `kubectl get pods` look as they do against a real cluster. The Name column is added by toTable (except for
// Events, whose columns place it themselves).
import type { PrinterColumn } from './printer-column.js';
import { CREATION_TIMESTAMP_DESCRIPTION } from './printer-column.js';
import type { Json } from './builtin-column-cells.js';
import { ageColumn, field, list, num, rec, str } from './builtin-column-cells.js';
import { nodeColumns } from './node-printer-columns.js';
import { podColumns } from './pod-printer-columns.js';
import { eventColumns } from './event-printer-columns.js';

function countKeys(...maps: unknown[]): number {
  return maps.reduce<number>((n, m) => n + Object.keys(rec(m)).length, 0);
}

function intOrPercent(v: unknown): string {
  if (typeof v === 'number') return String(v);
  return typeof v === 'string' && v !== '' ? v : 'N/A';
}

// kube prints the number of webhooks in a configuration.
const webhookColumns: PrinterColumn[] = [
  {
    name: 'Webhooks',
    type: 'integer',
    jsonPath: '.webhooks',
    description: 'Webhooks indicates the number of webhooks',
    cell: (o) => list((o as unknown as Json).webhooks).length,
  },
  ageColumn,
];

const columnsByKind: Record<string, PrinterColumn[]> = {
  MutatingWebhookConfiguration: webhookColumns,
  ValidatingWebhookConfiguration: webhookColumns,
  Namespace: [
    {
      name: 'Status',
      type: 'string',
      jsonPath: '.status.phase',
      description: 'The status of the namespace',
      cell: (o) => str(field(o, 'status').phase),
    },
    ageColumn,
  ],
  Node: nodeColumns,
  Event: eventColumns,
  Pod: podColumns,
  Secret: [
    {
      name: 'Type',
      type: 'string',
      jsonPath: '.type',
      description: 'The type of the secret',
      cell: (o) => str((o as unknown as Json).type),
    },
    {
      name: 'Data',
      type: 'string',
      jsonPath: '.data',
      description: 'The number of entries in the secret',
      cell: (o) => countKeys((o as unknown as Json).data),
    },
    ageColumn,
  ],
  ConfigMap: [
    {
      name: 'Data',
      type: 'string',
      jsonPath: '.data',
      description: 'The number of entries in the config map',
      cell: (o) => countKeys((o as unknown as Json).data, (o as unknown as Json).binaryData),
    },
    ageColumn,
  ],
  Lease: [
    {
      name: 'Holder',
      type: 'string',
      jsonPath: '.spec.holderIdentity',
      description: 'The holder of the lease',
      cell: (o) => str(field(o, 'spec').holderIdentity),
    },
    ageColumn,
  ],
  PodDisruptionBudget: [
    {
      name: 'Min Available',
      type: 'string',
      jsonPath: '.spec.minAvailable',
      description: 'The minimum number of pods that must be available',
      cell: (o) => intOrPercent(field(o, 'spec').minAvailable),
    },
    {
      name: 'Max Unavailable',
      type: 'string',
      jsonPath: '.spec.maxUnavailable',
      description: 'The maximum number of pods that may be unavailable',
      cell: (o) => intOrPercent(field(o, 'spec').maxUnavailable),
    },
    {
      name: 'Allowed Disruptions',
      type: 'integer',
      jsonPath: '.status.disruptionsAllowed',
      description: 'Calculated number of pods that may be disrupted at this time',
      cell: (o) => num(field(o, 'status').disruptionsAllowed),
    },
    ageColumn,
  ],
  // Kinds without a dedicated printer (CRDs themselves) get kube's default table: the creation time, in RFC 3339.
  CustomResourceDefinition: [
    {
      name: 'Created At',
      type: 'date',
      jsonPath: '.metadata.creationTimestamp',
      description: CREATION_TIMESTAMP_DESCRIPTION,
      cell: (o) => {
        const t = Date.parse(o.metadata.creationTimestamp ?? '');
        return Number.isNaN(t) ? null : new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
      },
    },
  ],
};

/** The columns (after Name) kube prints for a built-in kind; any other kind gets Name and Age. */
export function defaultColumnsFor(kind: string): PrinterColumn[] {
  return [...(columnsByKind[kind] ?? [ageColumn])];
}
