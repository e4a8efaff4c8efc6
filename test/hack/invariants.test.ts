// The chaos invariants catch what they claim to: each broken world below yields its violation.
import { expect } from 'chai';
import type { Machine, MachineSet, Node } from '../../lib/index.js';
import { templateHash } from '../../lib/machineset/template-hash.js';
import type { PauseEpisode } from '../../hack/chaos/controller-host.js';
import type { RecordedWrite } from '../../hack/chaos/write-recording-proxy.js';
import { benchProviders } from '../../hack/bench/providers.js';
import {
  checkCreateCalls,
  checkDeposedLeaders,
  checkInvariants,
  findSecrets,
  secretNeedles,
  type WorldView,
} from '../../hack/chaos/invariants.js';

const machine = (name: string, uid: string, phase: string, extra: Partial<Machine['metadata']> = {}): Machine => ({
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'Machine',
  metadata: {
    name,
    uid,
    ownerReferences: [
      { apiVersion: 'machine.openshift.io/v1beta1', kind: 'MachineSet', name: 'set', uid: 'set-uid', controller: true },
    ],
    ...extra,
  },
  status: { phase },
});
const set = (replicas: number): MachineSet =>
  ({
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineSet',
    metadata: { name: 'set' },
    spec: { replicas },
  }) as MachineSet;
const instance = (id: string, uid: string) => ({
  instanceId: id,
  state: 'running',
  tags: [{ key: 'machine.openshift.io/machine-uid', value: uid }],
});
const node = (name: string, providerID: string): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name },
  spec: { providerID },
});
/** Running Machines get a providerID and a Node of their own unless the test says otherwise. */
const running = (name: string, uid: string, extra: Partial<Machine['metadata']> = {}): Machine => ({
  ...machine(name, uid, 'Running', extra),
  spec: { providerID: `aws:///us-east-1a/i-${uid}` },
  status: { phase: 'Running', nodeRef: { kind: 'Node', name: `node-${uid}` } },
});
const nodesOf = (machines: Machine[]) =>
  machines.filter((m) => m.status?.nodeRef).map((m) => node(m.status?.nodeRef?.name ?? '', m.spec?.providerID ?? ''));
const world = (
  machines: Machine[],
  instances: ReturnType<typeof instance>[],
  replicas = machines.length,
  nodes = nodesOf(machines),
): WorldView => ({ machines, machineSets: [set(replicas)], instances, nodes });
const names = (w: WorldView, allowed: string[] = []) => checkInvariants(7, w, new Set(allowed)).map((v) => v.invariant);

describe('chaos invariants', () => {
  it('accept a converged world', () => {
    expect(names(world([running('a', 'u1')], [instance('i-1', 'u1')]))).to.deep.equal([]);
  });

  it('report a Running machine with two instances, and an instance nobody owns', () => {
    expect(
      names(world([running('a', 'u1')], [instance('i-1', 'u1'), instance('i-2', 'u1'), instance('i-3', 'gone')])),
    ).to.have.members(['every Running Machine has exactly one instance', 'no instance without a Machine']);
  });

  it('report a Failed machine unless its instance was terminated out of band', () => {
    const w = world([machine('a', 'u1', 'Failed')], []);
    expect(names(w)).to.include('no Machine Failed except after an out-of-band termination');
    expect(names(w, ['u1'])).to.deep.equal([]);
  });

  it('report a Running Machine with fallbacks whose instance type is not that of the entry it records', () => {
    const onEntry = (type: string): Machine => {
      const m = running('a', 'u1', { labels: { 'machine.openshift.io/instance-type': type } });
      m.status = {
        ...m.status,
        providerStatus: { capacityEntry: { index: 1, instanceType: 'm6a.xlarge', zone: 'z', market: 'on-demand' } },
      };
      return m;
    };
    expect(names(world([onEntry('m6a.xlarge')], [instance('i-1', 'u1')]))).to.deep.equal([]);
    expect(names(world([onEntry('m6i.xlarge')], [instance('i-1', 'u1')]))).to.deep.equal([
      'a Running Machine with fallbacks runs the entry it records',
    ]);
  });

  it('report a deleted machine still held by a finalizer, and a set short of its replicas', () => {
    const w = world(
      [
        machine('a', 'u1', 'Deleting', {
          deletionTimestamp: '2026-01-01T00:00:00Z',
          finalizers: ['machine.machine.openshift.io'],
        }),
      ],
      [],
      1,
    );
    expect(names(w)).to.have.members([
      'no finalizer left on a deleted object',
      'the MachineSet converged to its replicas',
    ]);
  });

  it('require a RollingUpdate set to end with every Machine made from its template, and say so', () => {
    const rolling = (conditionStatus: 'True' | 'False'): MachineSet => ({
      ...set(1),
      metadata: { name: 'set', annotations: { 'machine.openshift.io/rollout-strategy': 'RollingUpdate' } },
      spec: { replicas: 1, selector: {}, template: { spec: { providerSpec: { value: { instanceType: 'x' } } } } },
      status: { conditions: [{ type: 'UpToDate', status: conditionStatus }] },
    });
    const hash = templateHash(rolling('True'));
    const stamped = (h: string) => running('a', 'u1', { labels: { 'machine.openshift.io/template-hash': h } });
    const w = (m: Machine, s: MachineSet): WorldView => ({
      machines: [m],
      machineSets: [s],
      instances: [instance('i-1', 'u1')],
      nodes: nodesOf([m]),
    });
    const rule = 'a RollingUpdate MachineSet converges to every Machine made from its template';
    expect(names(w(stamped(hash), rolling('True')))).to.deep.equal([]);
    expect(names(w(stamped('0ld'), rolling('True')))).to.deep.equal([rule]);
    expect(names(w(stamped(hash), rolling('False')))).to.deep.equal([rule]);
    expect(names(w(stamped('0ld'), { ...rolling('False'), metadata: { name: 'set' } })), 'OnDelete').to.deep.equal([]);
  });

  it('report a Node no Machine owns', () => {
    const w = world([running('a', 'u1')], [instance('i-1', 'u1')], 1, [
      ...nodesOf([running('a', 'u1')]),
      node('stray', 'aws:///us-east-1a/i-gone'),
    ]);
    expect(checkInvariants(7, w, new Set())).to.deep.equal([
      { seed: 7, invariant: 'no orphan Node', detail: 'Node stray (aws:///us-east-1a/i-gone) belongs to no Machine' },
    ]);
  });

  it('report two Machines with one providerID', () => {
    const b = { ...running('b', 'u2'), spec: { providerID: 'aws:///us-east-1a/i-u1' } };
    expect(names(world([running('a', 'u1'), b], [instance('i-1', 'u1'), instance('i-2', 'u2')]))).to.include(
      'no two Machines with one providerID',
    );
  });

  it('report a Running Machine whose nodeRef is missing, names no Node, or a Node of another providerID', () => {
    const rule = "every Running Machine's nodeRef names an existing Node with its providerID";
    const noRef = { ...running('a', 'u1'), status: { phase: 'Running' } };
    expect(names(world([noRef], [instance('i-1', 'u1')], 1, []))).to.deep.equal([rule]);
    expect(names(world([running('a', 'u1')], [instance('i-1', 'u1')], 1, []))).to.deep.equal([rule]);
    expect(
      names(world([running('a', 'u1')], [instance('i-1', 'u1')], 1, [node('node-u1', 'aws:///us-east-1a/i-other')])),
    ).to.include(rule);
  });

  it('require the load balancer to register exactly the Running Machines of its set, in every group', () => {
    const rule = 'the load balancer registers exactly the Running Machines of set';
    const a = running('a', 'u1');
    const b = running('b', 'u2');
    const provisioned = { ...machine('c', 'u3', 'Provisioned'), spec: { providerID: 'aws:///us-east-1a/i-u3' } };
    const instances = [instance('i-1', 'u1'), instance('i-2', 'u2'), instance('i-3', 'u3')];
    const lb = (...groups: Array<[string, string[]]>) => ({
      machineSet: 'set',
      groups: groups.map(([group, members]) => ({ group, members })),
    });
    const base = world([a, b, provisioned], instances, 3);
    const check = (w: WorldView) =>
      checkInvariants(7, w, new Set())
        .filter((v) => v.invariant === rule)
        .map((v) => v.detail);
    expect(
      check({ ...base, loadBalancer: lb(['tg-instances', ['i-2', 'i-1']], ['tg-ips', ['i-1', 'i-2']]) }),
    ).to.deep.equal([]);
    expect(
      check({ ...base, loadBalancer: lb(['tg-instances', ['i-1', 'i-2']], ['tg-ips', ['i-1', '10.0.0.9', 'i-3']]) }),
    ).to.deep.equal(["tg-ips: missing i-2; registered but not a Running Machine's: 10.0.0.9, i-3"]);
    const otherSets = {
      ...running('d', 'u4'),
      metadata: {
        ...running('d', 'u4').metadata,
        ownerReferences: [
          { apiVersion: 'machine.openshift.io/v1beta1', kind: 'MachineSet', name: 'other', uid: 'o', controller: true },
        ],
      },
    };
    const w = {
      ...world([a, otherSets], [instance('i-1', 'u1'), instance('i-4', 'u4')]),
      machineSets: [set(1)],
      loadBalancer: lb(['pool', ['i-1', 'i-4']]),
    };
    expect(check(w), "another set's instance").to.deep.equal([
      "pool: missing none; registered but not a Running Machine's: i-4",
    ]);
    expect(check({ ...base, loadBalancer: lb(['pool', []]) })).to.deep.equal([
      "pool: missing i-1, i-2; registered but not a Running Machine's: none",
    ]);
  });

  it("report a deposed leader's write the server applied after it resumed, not one it rejected, nor a leader never deposed", () => {
    const episode = (writes: RecordedWrite[], holderAtResume = 'b'): PauseEpisode => ({
      replica: 'ctl-0',
      leaseHolderAtPause: 'a',
      leaseHolderAtResume: holderAtResume,
      resumedAt: 1_000,
      writesAfterResume: () => writes,
    });
    const applied = {
      at: 1_200,
      method: 'PATCH',
      path: '/apis/machine.openshift.io/v1beta1/namespaces/ns/machines/m/status',
      status: 200,
    };
    const rejected = { ...applied, status: 409 };
    expect(checkDeposedLeaders(3, [episode([applied, rejected])])).to.deep.equal([
      {
        seed: 3,
        invariant: "a deposed leader's writes are rejected, never applied",
        detail: 'ctl-0: PATCH /apis/machine.openshift.io/v1beta1/namespaces/ns/machines/m/status 200 at +200 ms',
      },
    ]);
    expect(checkDeposedLeaders(3, [episode([rejected])])).to.deep.equal([]);
    expect(checkDeposedLeaders(3, [episode([applied], 'a')]), 'still the holder: it may write').to.deep.equal([]);
  });

  it('bound the create calls per Machine created', () => {
    expect(checkCreateCalls(1, 45, 3)).to.deep.equal([]);
    expect(checkCreateCalls(1, 46, 3).map((v) => v.detail)).to.deep.equal(['46 create calls for 3 Machines']);
  });

  it('look for every planted secret: values, the user data in base64, the GCP private key', () => {
    const needles = secretNeedles(benchProviders.gcp.secrets('ns'));
    const userData = needles['user data'] ?? '';
    const key = needles['GCP private key'] ?? '';
    expect(key).to.not.equal('');
    const found = findSecrets(
      5,
      [
        ['Machines', `{"x":"${Buffer.from(userData).toString('base64')}"}`],
        ['controller logs', `key=${key}`],
        ['events', 'nothing here'],
      ],
      needles,
    );
    expect(found.map((v) => v.detail)).to.have.members([
      'user data (base64) found in Machines',
      'GCP private key found in controller logs',
    ]);
  });

  it('carry the seed on every violation', () => {
    expect(checkInvariants(42, world([], [instance('i-9', 'x')]), new Set()).every((v) => v.seed === 42)).to.equal(
      true,
    );
  });
});
