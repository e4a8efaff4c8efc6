import { expect } from 'chai';
import type { Machine } from '../../../lib/apis/machine-types.js';
import { conformanceContext } from '../../../sim/kit/conformance.js';
import { FakeActuator, FakeLostReplyError, FakeThrottlingError } from '../../../sim/kit/fake-actuator.js';

const m = (name: string): Machine => ({
  metadata: { name, namespace: 'ns', uid: `uid-${name}` },
  spec: { providerSpec: { value: { zone: 'z-1' } } },
});
const ctx = conformanceContext();

describe('FakeActuator', () => {
  it('records every call by method and machine', async () => {
    const a = new FakeActuator();
    await a.create(m('a'), ctx);
    await a.exists(m('a'), ctx);
    await a.exists(m('b'), ctx);
    expect(a.calls.map((c) => `${c.method} ${c.name}`)).to.deep.equal(['create a', 'exists a', 'exists b']);
    expect(a.callCount('exists')).to.equal(2);
    expect(a.callCount('exists', 'b')).to.equal(1);
  });

  it('injects failures for a number of calls, then behaves again', async () => {
    const a = new FakeActuator();
    a.failNext('exists', new Error('boom'), 2);
    const results = await Promise.allSettled([a.exists(m('a'), ctx), a.exists(m('a'), ctx), a.exists(m('a'), ctx)]);
    expect(results.map((r) => r.status)).to.deep.equal(['rejected', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseRejectedResult).reason).to.have.property('message', 'boom');
  });

  it('blocks a method until released', async () => {
    const a = new FakeActuator();
    const release = a.block('create');
    let done = false;
    const p = a.create(m('a'), ctx).then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    expect(done).to.equal(false);
    release();
    await p;
    expect(done).to.equal(true);
  });

  it('makes a lost create reply fail after the instance was made, and throttling fail before', async () => {
    const a = new FakeActuator();
    a.loseNextReply('create');
    const err = await a.create(m('a'), ctx).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(FakeLostReplyError);
    expect(a.countInstancesFor(m('a'))).to.equal(1);
    a.throttle(true);
    expect(await a.create(m('b'), ctx).catch((e: unknown) => e)).to.be.instanceOf(FakeThrottlingError);
    expect(a.countInstancesFor(m('b'))).to.equal(0);
  });

  it('writes providerID fake:///<zone>/<id> and the addresses on update, and shows instances to the kubelet', async () => {
    const a = new FakeActuator();
    const machine = m('a');
    await a.create(machine, ctx);
    await a.update(machine, ctx);
    const inst = a.instanceFor(machine)!;
    expect(machine.spec?.providerID).to.equal(`fake:///z-1/${inst.id}`);
    expect(machine.status?.addresses?.map((x) => x.type)).to.deep.equal(['InternalIP', 'InternalDNS', 'Hostname']);
    expect(a.listInstances()).to.deep.equal([
      {
        providerID: `fake:///z-1/${inst.id}`,
        nodeName: inst.nodeName,
        state: 'running',
        addresses: inst.addresses,
        labels: {
          'node.kubernetes.io/instance-type': 'fake.large',
          'topology.kubernetes.io/region': 'fake-region-1',
          'topology.kubernetes.io/zone': 'z-1',
          'kubernetes.io/arch': 'amd64',
        },
      },
    ]);
  });
});
