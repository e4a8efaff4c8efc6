import { expect } from 'chai';
import type { Machine } from '../../../lib/apis/machine-types.js';
import { changesNothingRead, OwnWrites } from '../../../lib/machine/own-writes.js';
import { Machines } from '../../../lib/client/resources.js';
import { notesOf, type Actuator } from '../../../lib/machine/actuator.js';
import { NoteKey } from '../../../lib/machine/reconcile-notes.js';
import { FakeActuator } from '../../../sim/kit/fake-actuator.js';
import { machine, machineEnv, NS } from './fixtures.js';

const KEY = 'openshift-machine-api/m1';

/** `m` at resourceVersion `rv` with `change` applied (a shallow merge of metadata, spec and status). */
function at(m: Machine, rv: string, change: Partial<Machine> = {}): Machine {
  return {
    ...m,
    metadata: { ...m.metadata, ...change.metadata, resourceVersion: rv },
    spec: { ...m.spec, ...change.spec },
    status: { ...m.status, ...change.status },
  };
}

describe('OwnWrites: the echoes of the machine controller’s own writes', () => {
  const base = at(machine('m1'), '10');
  const written = at(base, '11', {
    spec: { providerID: 'aws:///us-east-1a/i-1' },
    status: { phase: 'Provisioned', lastUpdated: '2026-11-28T10:00:00Z' },
  });

  it('knows the echo of a noted write, and of each of its two patches', () => {
    const own = new OwnWrites();
    own.note(KEY, written);
    expect(own.isEcho(KEY, written, base)).to.equal(true);
    const metaOnly = at(base, '11', { spec: { providerID: 'aws:///us-east-1a/i-1' } });
    expect(own.isEcho(KEY, metaOnly, base), 'the metadata/spec patch').to.equal(true);
    expect(own.isEcho(KEY, at(written, '12'), metaOnly), 'then the status patch').to.equal(true);
  });

  it('knows the echo of the first of two writes of one reconcile when it arrives after the second was noted (a launch: Provisioning, then Provisioned)', () => {
    const own = new OwnWrites();
    const provisioning = at(base, '11', {
      spec: { providerID: 'aws:///us-east-1a/i-1' },
      status: { phase: 'Provisioning', lastUpdated: '2026-11-28T10:00:00Z' },
    });
    const provisioned = at(provisioning, '12', { status: { ...provisioning.status, phase: 'Provisioned' } });
    own.note(KEY, provisioning);
    own.note(KEY, provisioned);
    expect(own.isEcho(KEY, provisioning, base), 'the first write, seen late').to.equal(true);
    expect(own.isEcho(KEY, provisioned, provisioning), 'then the second').to.equal(true);
    const linked = at(provisioned, '13', { status: { ...provisioned.status, nodeRef: { kind: 'Node', name: 'n1' } } });
    expect(own.isEcho(KEY, linked, provisioned), 'and still nobody else').to.equal(false);
  });

  it("passes anyone else's change: NodeLink's nodeRef, a user's annotation, the deletion", () => {
    const own = new OwnWrites();
    own.note(KEY, written);
    const linked = at(written, '12', { status: { ...written.status, nodeRef: { kind: 'Node', name: 'n1' } } });
    expect(own.isEcho(KEY, linked, written)).to.equal(false);
    const annotated = at(written, '12', { metadata: { annotations: { 'example.com/note': 'x' } } });
    expect(own.isEcho(KEY, annotated, written)).to.equal(false);
    const deleted = at(written, '12', { metadata: { deletionTimestamp: '2026-11-28T10:01:00Z' } });
    expect(own.isEcho(KEY, deleted, written)).to.equal(false);
  });

  it('passes our write when it lands together with a change of someone else (a relist that skipped a version)', () => {
    const own = new OwnWrites();
    own.note(KEY, written);
    const both = at(written, '12', { metadata: { labels: { ...written.metadata.labels, other: 'x' } } });
    expect(own.isEcho(KEY, both, base)).to.equal(false);
  });

  it('passes everything once cleared (the next reconcile of the Machine began), and knows nothing of other Machines', () => {
    const own = new OwnWrites();
    own.note(KEY, written);
    expect(own.isEcho('openshift-machine-api/m2', written, base)).to.equal(false);
    own.clear(KEY);
    expect(own.isEcho(KEY, written, base)).to.equal(false);
    expect(own.size).to.equal(0);
  });

  it('knows an update that changes only what no reconcile reads: the resourceVersion, status.lastUpdated', () => {
    expect(changesNothingRead(at(base, '12', { status: { lastUpdated: '2026-11-28T10:02:00Z' } }), base)).to.equal(
      true,
    );
    expect(changesNothingRead(at(base, '12', { status: { phase: 'Running' } }), base)).to.equal(false);
  });
});

describe('machine controller: which watch events of a Machine ask for a reconcile', () => {
  it("drops the echoes of a reconcile's writes until the next reconcile of the Machine begins", async () => {
    const env = machineEnv(new FakeActuator());
    await env.client.create(Machines, machine('m1', { metadata: { finalizers: [] } }));
    const before = env.get('m1')!;
    await env.reconcile('m1');
    const after = env.get('m1')!;
    expect(after.status?.phase).to.equal('Provisioned');
    expect(env.reconciler.isEcho(after, before), 'finalizer, launch and Provisioned: all ours').to.equal(true);
    expect(env.reconciler.isEcho(after, after), 'a resync').to.equal(false);
    const linked = { ...after, status: { ...after.status, nodeRef: { kind: 'Node', name: 'n1' } } };
    expect(env.reconciler.isEcho(linked, after), "NodeLink's nodeRef").to.equal(false);
    // The next reconcile of the Machine begins: whatever comes after it is looked at.
    await env.reconcile('m1');
    expect(env.reconciler.isEcho(after, before)).to.equal(false);
  });

  it("never drops the echoes of a deletion's writes: each of its steps waits on someone else", async () => {
    const env = machineEnv(new FakeActuator());
    await env.client.create(Machines, machine('m1'));
    await env.reconcile('m1');
    await env.client.delete(Machines, { namespace: NS, name: 'm1' });
    const before = env.get('m1')!;
    await env.reconcile('m1');
    const after = env.get('m1')!;
    expect(after.status?.phase).to.equal('Deleting');
    expect(env.reconciler.isEcho(after, before)).to.equal(false);
  });
});

describe('machine controller: what a reconcile read is never handed to a reconcile that is not the echo of its write', () => {
  it('reads afresh at the version its own noted write produced (that echo is dropped: something else brought it)', async () => {
    const SEEN = new NoteKey<string>('test/seen');
    const handed: Array<string | undefined> = [];
    let reads = 0;
    const actuator: Actuator = {
      create: () => Promise.resolve(),
      exists: (_m, ctx) => {
        handed.push(notesOf(ctx).takeCarried(SEEN));
        return Promise.resolve(true);
      },
      update: (m, ctx) => {
        notesOf(ctx).set(SEEN, `read-${++reads}`);
        m.metadata.annotations = { ...m.metadata.annotations, 'example.com/reads': String(reads) };
        return Promise.resolve();
      },
      delete: () => Promise.resolve(),
    };
    const env = machineEnv(actuator);
    await env.client.create(Machines, machine('m1', { spec: { providerID: 'fake:///a/i-1' } }));
    await env.reconcile('m1');
    // As a Node's deletion would: a reconcile of the very version the first one wrote.
    await env.reconcile('m1');
    expect(handed).to.deep.equal([undefined, undefined]);
  });
});
