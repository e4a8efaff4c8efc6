import { expect } from 'chai';
import { createEventRecorder } from '../../../lib/client/aggregating-event-recorder.js';
import type { KubeClient } from '../../../lib/client/kube-client.js';
import { Events, Namespaces } from '../../../lib/client/resources.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';

describe('EventRecorder against the local control plane', function () {
  this.timeout(20_000);
  let env: TestEnv;
  before(async () => {
    env = await startTestEnv();
    await env.client.create(Namespaces, { metadata: { name: 'ev' } });
  });
  after(async () => env?.stop());

  const machine = {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: { name: 'm1', namespace: 'ev', uid: 'u1' },
  };

  it('writes one Event per repeated failure with a growing count instead of a new object each time', async () => {
    const rec = createEventRecorder({ client: env.client, component: 'machine-controller' });
    for (let i = 0; i < 5; i++) rec.event(machine, 'Warning', 'FailedCreate', 'Create', 'instance quota exceeded');
    rec.event(machine, 'Normal', 'Created', 'Create', 'created instance i-1');
    await rec.flush();
    const { items } = await env.client.list(Events, { namespace: 'ev' });
    const failed = items.filter((e) => e.reason === 'FailedCreate');
    expect(failed).to.have.length(1);
    expect(failed[0]!.count).to.equal(5);
    expect(failed[0]!.involvedObject).to.include({ kind: 'Machine', name: 'm1', namespace: 'ev', uid: 'u1' });
    expect(failed[0]!.source?.component).to.equal('machine-controller');
    expect(items.filter((e) => e.reason === 'Created')).to.have.length(1);
  });

  it('writes the Events of different objects side by side, and a repeat only after the create it counts', async () => {
    let inFlight = 0;
    let most = 0;
    const client = Object.create(env.client) as KubeClient;
    const create = env.client.create.bind(env.client);
    client.create = (async (...args: Parameters<KubeClient['create']>) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 20));
      try {
        return await create(...args);
      } finally {
        inFlight--;
      }
    }) as KubeClient['create'];
    const rec = createEventRecorder({ client, component: 'c3' });
    const named = (name: string) => ({ ...machine, metadata: { ...machine.metadata, name, uid: name } });
    for (let i = 0; i < 12; i++) rec.event(named(`p${i}`), 'Normal', 'DrainSucceeded', 'Drain', 'Node drain succeeded');
    for (let i = 0; i < 3; i++) rec.event(named('p-repeat'), 'Warning', 'FailedCreate', 'Create', 'quota exceeded');
    await rec.flush();
    expect(most, 'writes in flight at once').to.be.within(2, 4);
    const { items } = await env.client.list(Events, { namespace: 'ev' });
    expect(items.filter((e) => e.reason === 'DrainSucceeded' && e.source?.component === 'c3')).to.have.length(12);
    const repeated = items.filter((e) => e.involvedObject.name === 'p-repeat');
    expect(repeated).to.have.length(1);
    expect(repeated[0]!.count).to.equal(3);
  });

  it('re-creates an aggregated Event that was deleted meanwhile', async () => {
    const rec = createEventRecorder({ client: env.client, component: 'c2' });
    const obj = { ...machine, metadata: { ...machine.metadata, name: 'm2', uid: 'u2' } };
    rec.event(obj, 'Warning', 'Drain', 'Drain', 'blocked');
    await rec.flush();
    const [first] = (await env.client.list(Events, { namespace: 'ev' })).items.filter(
      (e) => e.involvedObject.name === 'm2',
    );
    await env.client.delete(Events, { namespace: 'ev', name: first!.metadata.name! });
    rec.event(obj, 'Warning', 'Drain', 'Drain', 'blocked');
    await rec.flush();
    const again = (await env.client.list(Events, { namespace: 'ev' })).items.filter(
      (e) => e.involvedObject.name === 'm2',
    );
    expect(again).to.have.length(1);
    expect(again[0]!.count).to.equal(1);
  });

  it('stamps eventTime (microseconds) when it knows its instance, so events.k8s.io/v1 readers get a complete Event', async () => {
    const rec = createEventRecorder({ client: env.client, component: 'c4', host: 'pod-0' });
    rec.event(
      { ...machine, metadata: { ...machine.metadata, name: 'm4', uid: 'u4' } },
      'Normal',
      'Created',
      'Create',
      'created',
    );
    await rec.flush();
    const [ev] = (await env.client.list(Events, { namespace: 'ev' })).items.filter(
      (e) => e.involvedObject.name === 'm4',
    );
    expect(ev!.eventTime).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(ev!.eventTime!.slice(0, 19)).to.equal(ev!.firstTimestamp!.slice(0, 19));
    expect(ev).to.include({
      reportingComponent: 'c4',
      reportingInstance: 'pod-0',
      action: 'Create',
      reason: 'Created',
    });
  });

  it('never throws into the caller when the API rejects the event', async () => {
    const rec = createEventRecorder({ client: env.client, component: 'c3' });
    rec.event({ metadata: { name: 'x', namespace: 'no-such-namespace' } }, 'Normal', 'R', 'A', 'm');
    await rec.flush();
  });
});
