import { expect } from 'chai';
import { defaultColumnsFor } from '../../../sim/apiserver/builtin-printer-columns.js';
import { toTable } from '../../../sim/apiserver/table.js';
import type { KubeObject } from '../../../lib/apis/meta.js';
import { ago, day, hour, minute, now } from './printing-fixtures.js';

describe('defaultColumnsFor', () => {
  const cellsOf = (kind: string, obj: unknown) => {
    const table = toTable([obj as KubeObject], defaultColumnsFor(kind), { now });
    const names = (table.columnDefinitions as Array<{ name: string }>).map((c) => c.name);
    const cells = (table.rows as Array<{ cells: unknown[] }>)[0]!.cells;
    return Object.fromEntries(names.map((n, i) => [n, cells[i]]));
  };

  it('gives Namespaces Name, Status and Age', () => {
    expect(
      cellsOf('Namespace', { metadata: { name: 'ns', creationTimestamp: ago(3 * hour) }, status: { phase: 'Active' } }),
    ).to.deep.equal({
      Name: 'ns',
      Status: 'Active',
      Age: '3h',
    });
  });

  const nodeCases: Array<{ name: string; node: Record<string, unknown>; status: string; roles: string }> = [
    {
      name: 'a Ready worker',
      node: {
        metadata: { labels: { 'node-role.kubernetes.io/worker': '' } },
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
      },
      status: 'Ready',
      roles: 'worker',
    },
    {
      name: 'a NotReady node',
      node: { metadata: {}, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } },
      status: 'NotReady',
      roles: '<none>',
    },
    { name: 'a node without a Ready condition', node: { metadata: {} }, status: 'Unknown', roles: '<none>' },
    {
      name: 'a cordoned master',
      node: {
        metadata: {
          labels: {
            'node-role.kubernetes.io/master': '',
            'node-role.kubernetes.io/control-plane': '',
            'kubernetes.io/role': 'infra',
          },
        },
        spec: { unschedulable: true },
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
      },
      status: 'Ready,SchedulingDisabled',
      roles: 'control-plane,infra,master',
    },
  ];
  for (const c of nodeCases) {
    it(`prints ${c.name} as kubectl does`, () => {
      const node = {
        ...c.node,
        metadata: { name: 'n', creationTimestamp: ago(2 * day), ...(c.node.metadata as object) },
      };
      const cells = cellsOf('Node', node);
      expect(cells).to.include({ Name: 'n', Status: c.status, Roles: c.roles, Age: '2d' });
    });
  }

  it('prints Node version and the wide columns', () => {
    const node = {
      metadata: { name: 'n', creationTimestamp: ago(minute) },
      status: {
        nodeInfo: { kubeletVersion: 'v1.30.1', osImage: 'RHCOS' },
        addresses: [{ type: 'InternalIP', address: '10.0.0.2' }],
      },
    };
    expect(cellsOf('Node', node)).to.deep.equal({
      Name: 'n',
      Status: 'Unknown',
      Roles: '<none>',
      Age: '60s',
      Version: 'v1.30.1',
      'Internal-IP': '10.0.0.2',
      'External-IP': '<none>',
      'OS-Image': 'RHCOS',
      'Kernel-Version': '<none>',
      'Container-Runtime': '<none>',
    });
    const defs = toTable([], defaultColumnsFor('Node'), { now }).columnDefinitions as Array<{
      name: string;
      priority: number;
    }>;
    expect(defs.filter((d) => d.priority === 0).map((d) => d.name)).to.deep.equal([
      'Name',
      'Status',
      'Roles',
      'Age',
      'Version',
    ]);
  });

  const podCases: Array<{ name: string; pod: Record<string, unknown>; want: Record<string, unknown> }> = [
    {
      name: 'a running pod',
      pod: {
        spec: { containers: [{ name: 'a' }, { name: 'b' }] },
        status: {
          phase: 'Running',
          containerStatuses: [
            { name: 'a', ready: true, restartCount: 0, state: { running: {} } },
            {
              name: 'b',
              ready: false,
              restartCount: 2,
              state: { running: {} },
              lastState: { terminated: { finishedAt: ago(10 * minute) } },
            },
          ],
        },
      },
      want: { Ready: '1/2', Status: 'Running', Restarts: '2 (10m ago)' },
    },
    {
      name: 'a crash-looping pod',
      pod: {
        spec: { containers: [{ name: 'a' }] },
        status: {
          phase: 'Running',
          containerStatuses: [{ name: 'a', restartCount: 5, state: { waiting: { reason: 'CrashLoopBackOff' } } }],
        },
      },
      want: { Ready: '0/1', Status: 'CrashLoopBackOff', Restarts: '5' },
    },
    {
      name: 'a pod waiting on an init container',
      pod: {
        spec: { initContainers: [{ name: 'i' }], containers: [{ name: 'a' }] },
        status: { phase: 'Pending', initContainerStatuses: [{ name: 'i', state: { running: {} } }] },
      },
      want: { Ready: '0/1', Status: 'Init:0/1', Restarts: '0' },
    },
    {
      name: 'a completed pod',
      pod: {
        spec: { containers: [{ name: 'a' }] },
        status: {
          phase: 'Succeeded',
          containerStatuses: [{ name: 'a', state: { terminated: { reason: 'Completed', exitCode: 0 } } }],
        },
      },
      want: { Ready: '0/1', Status: 'Completed', Restarts: '0' },
    },
    {
      name: 'a terminated pod without reason',
      pod: {
        spec: { containers: [{ name: 'a' }] },
        status: { phase: 'Failed', containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 137 } } }] },
      },
      want: { Status: 'ExitCode:137' },
    },
    {
      name: 'a terminating pod',
      pod: {
        metadata: { deletionTimestamp: ago(0) },
        spec: { containers: [{ name: 'a' }] },
        status: { phase: 'Running' },
      },
      want: { Status: 'Terminating' },
    },
    {
      name: 'an evicted pod',
      pod: { spec: { containers: [{ name: 'a' }] }, status: { phase: 'Failed', reason: 'Evicted' } },
      want: { Status: 'Evicted' },
    },
  ];
  for (const c of podCases) {
    it(`prints ${c.name} as kubectl does`, () => {
      const pod = {
        ...c.pod,
        metadata: { name: 'p', creationTimestamp: ago(hour), ...((c.pod.metadata as object | undefined) ?? {}) },
      };
      expect(cellsOf('Pod', pod)).to.include({ Name: 'p', Age: '60m', ...c.want });
    });
  }

  it('gives Secrets their type and number of entries', () => {
    expect(
      cellsOf('Secret', {
        metadata: { name: 's', creationTimestamp: ago(day) },
        type: 'Opaque',
        data: { a: 'eA==', b: 'eQ==' },
      }),
    ).to.deep.equal({
      Name: 's',
      Type: 'Opaque',
      Data: 2,
      Age: '24h',
    });
  });

  it('gives Leases their holder', () => {
    expect(cellsOf('Lease', { metadata: { name: 'l' }, spec: { holderIdentity: 'me' } })).to.deep.equal({
      Name: 'l',
      Holder: 'me',
      Age: '<unknown>',
    });
  });

  it("gives CRDs the creation time in RFC 3339, as kube's default table does", () => {
    expect(
      cellsOf('CustomResourceDefinition', { metadata: { name: 'c', creationTimestamp: '2024-05-01T11:00:00Z' } }),
    ).to.deep.equal({
      Name: 'c',
      'Created At': '2024-05-01T11:00:00Z',
    });
  });

  it("gives Events kubectl's columns, with Name last and only in the wide view", () => {
    const event = {
      metadata: { name: 'm-1.17a', namespace: 'openshift-machine-api' },
      involvedObject: { kind: 'Machine', name: 'm-1', fieldPath: '' },
      reason: 'Created',
      message: 'Created Machine m-1 ',
      type: 'Normal',
      source: { component: 'machine-controller' },
      firstTimestamp: ago(10 * minute),
      lastTimestamp: ago(2 * minute),
      count: 3,
    };
    expect(cellsOf('Event', event)).to.deep.equal({
      'Last Seen': '2m',
      Type: 'Normal',
      Reason: 'Created',
      Object: 'machine/m-1',
      Subobject: '',
      Source: 'machine-controller',
      Message: 'Created Machine m-1',
      'First Seen': '10m',
      Count: 3,
      Name: 'm-1.17a',
    });
    const defs = toTable([], defaultColumnsFor('Event'), { now }).columnDefinitions as Array<{
      name: string;
      priority: number;
    }>;
    expect(defs.filter((d) => d.priority === 0).map((d) => d.name)).to.deep.equal([
      'Last Seen',
      'Type',
      'Reason',
      'Object',
      'Message',
    ]);
  });

  it('counts a singleton event once and takes series times when present', () => {
    const single = {
      metadata: { name: 'e' },
      involvedObject: { kind: 'Node' },
      eventTime: ago(hour),
      reportingComponent: 'kubelet',
      reportingInstance: 'n1',
    };
    expect(cellsOf('Event', single)).to.include({
      'Last Seen': '60m',
      'First Seen': '60m',
      Count: 1,
      Object: 'node',
      Source: 'kubelet, n1',
    });
    const series = { ...single, series: { count: 7, lastObservedTime: ago(minute) } };
    expect(cellsOf('Event', series)).to.include({ 'Last Seen': '60s', Count: 7 });
  });

  it('gives any other kind Name and Age', () => {
    expect(cellsOf('ServiceAccount', { metadata: { name: 'sa', creationTimestamp: ago(30_000) } })).to.deep.equal({
      Name: 'sa',
      Age: '30s',
    });
  });

  it('returns a fresh list each time, so callers may extend it', () => {
    defaultColumnsFor('Node').push({ name: 'X', type: 'string', jsonPath: '.x' });
    expect(defaultColumnsFor('Node').map((c) => c.name)).to.not.include('X');
  });
});
