// The chaos invariants catch what they claim to: each broken world below yields its violation.
import { expect } from 'chai';
import type { Machine, MachineSet } from '../../lib/index.js';
import { checkInvariants, type WorldView } from '../../hack/chaos/invariants.js';

const machine = (name: string, uid: string, phase: string, extra: Partial<Machine['metadata']> = {}): Machine => ({
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'Machine',
  metadata: { name, uid, ownerReferences: [{ apiVersion: 'machine.openshift.io/v1beta1', kind: 'MachineSet', name: 'set', uid: 'set-uid', controller: true }], ...extra },
  status: { phase },
});
const set = (replicas: number): MachineSet => ({ apiVersion: 'machine.openshift.io/v1beta1', kind: 'MachineSet', metadata: { name: 'set' }, spec: { replicas } } as MachineSet);
const instance = (id: string, uid: string) => ({ instanceId: id, state: 'running', tags: [{ key: 'machine.openshift.io/machine-uid', value: uid }] });
const world = (machines: Machine[], instances: ReturnType<typeof instance>[], replicas = machines.length): WorldView =>
  ({ machines, machineSets: [set(replicas)], instances });
const names = (w: WorldView, allowed: string[] = []) => checkInvariants(7, w, new Set(allowed)).map((v) => v.invariant);

describe('chaos invariants', () => {
  it('accept a converged world', () => {
    expect(names(world([machine('a', 'u1', 'Running')], [instance('i-1', 'u1')]))).to.deep.equal([]);
  });

  it('report a Running machine with two instances, and an instance nobody owns', () => {
    expect(names(world([machine('a', 'u1', 'Running')], [instance('i-1', 'u1'), instance('i-2', 'u1'), instance('i-3', 'gone')]))).to.have.members([
      'every Running Machine has exactly one instance',
      'no instance without a Machine',
    ]);
  });

  it('report a Failed machine unless its instance was terminated out of band', () => {
    const w = world([machine('a', 'u1', 'Failed')], []);
    expect(names(w)).to.include('no Machine Failed except after an out-of-band termination');
    expect(names(w, ['u1'])).to.deep.equal([]);
  });

  it('report a deleted machine still held by a finalizer, and a set short of its replicas', () => {
    const w = world([machine('a', 'u1', 'Deleting', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['machine.machine.openshift.io'] })], [], 1);
    expect(names(w)).to.have.members(['no finalizer left on a deleted object', 'the MachineSet converged to its replicas']);
  });

  it('carry the seed on every violation', () => {
    expect(checkInvariants(42, world([], [instance('i-9', 'x')]), new Set()).every((v) => v.seed === 42)).to.equal(true);
  });
});
