import { expect } from 'chai';
import { DrainedCondition, MachineFinalizer, SecretsAvailableCondition } from '../../../lib/apis/constants.js';
import type { Condition, Machine } from '../../../lib/apis/machine-types.js';
import { Machines, Nodes } from '../../../lib/client/resources.js';
import { MissingSecretError } from '../../../lib/apis/errors.js';
import { FakeActuator } from '../../../sim/kit/fake-actuator.js';
import { machine, machineEnv, NS } from './fixtures.js';

const cond = (m: Machine | undefined): Condition | undefined =>
  m?.status?.conditions?.find((c) => c.type === SecretsAvailableCondition);
const missingCredentials = () => new MissingSecretError(NS, 'cloud-credentials', 'fake credentials');

describe('machine controller reconcile: a Secret the providerSpec names is missing', () => {
  describe('before the instance exists', () => {
    it('waits instead of failing: SecretsAvailable=False and a FailedCreate Warning name the Secret, nothing is created', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      a.failNext('exists', missingCredentials);
      expect(await env.reconcile('m1')).to.deep.equal({ requeueAfterMs: 1_000 });
      expect(a.callCount('create')).to.equal(0);
      const c = cond(env.get('m1'));
      expect(c).to.include({ status: 'False', reason: 'SecretNotFound', severity: 'Warning' });
      expect(c?.message).to.equal(
        `fake credentials secret ${NS}/cloud-credentials not found; the instance is created once it exists`,
      );
      expect(env.events.list).to.deep.include({
        object: 'm1',
        type: 'Warning',
        reason: 'FailedCreate',
        action: 'Create',
        message: `m1: ${c?.message}`,
      });
    });

    it('reports a missing user-data Secret met by create the same way, once', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      a.failNext('create', () => new MissingSecretError(NS, 'worker-user-data', 'user data'));
      expect(await env.reconcile('m1')).to.deep.equal({ requeueAfterMs: 1_000 });
      expect(cond(env.get('m1'))?.message).to.equal(
        `user data secret ${NS}/worker-user-data not found; the instance is created once it exists`,
      );
      expect(env.events.list.filter((e) => e.reason === 'FailedCreate')).to.have.length(1);
    });

    it('does not spin: its own status write finds it held, and the waits grow to a bound', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      a.failNext('exists', missingCredentials, Infinity);
      expect(await env.reconcile('m1')).to.deep.equal({ requeueAfterMs: 1_000 });
      // The watch event of the status write comes back at once: held, no cloud call.
      expect(await env.reconcile('m1')).to.deep.equal({ requeueAfterMs: 1_000 });
      expect(a.callCount('exists')).to.equal(1);
      const waits: number[] = [];
      for (let i = 0; i < 9; i++) {
        env.clock.step(200_000);
        const r = await env.reconcile('m1');
        waits.push(r ? (r.requeueAfterMs ?? 0) : 0);
      }
      expect(waits).to.deep.equal([2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 120_000, 120_000, 120_000]);
    });

    it('goes on at once when told the Secret changed (retryNow), and marks SecretsAvailable=True', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      a.failNext('exists', missingCredentials);
      await env.reconcile('m1');
      env.reconciler.retryNow({ namespace: NS, name: 'm1' });
      await env.reconcile('m1');
      expect(a.callCount('create')).to.equal(1);
      expect(cond(env.get('m1'))).to.include({ status: 'True', reason: 'SecretsFound' });
      expect(env.get('m1')?.status?.phase).to.equal('Provisioned');
    });

    it('adds no SecretsAvailable condition to a Machine that never waited', async () => {
      const env = machineEnv(new FakeActuator());
      await env.client.create(Machines, machine('m1'));
      await env.reconcile('m1');
      expect(cond(env.get('m1'))).to.equal(undefined);
    });
  });

  it('says FailedUpdate for a provisioned Machine whose Secret went away', async () => {
    const a = new FakeActuator();
    const env = machineEnv(a);
    await env.client.create(Machines, machine('m1'));
    for (let i = 0; i < 3; i++) await env.reconcile('m1');
    a.failNext('exists', missingCredentials);
    await env.reconcile('m1');
    expect(env.events.list.map((e) => e.reason)).to.include('FailedUpdate');
    expect(cond(env.get('m1'))?.message).to.contain('the machine is reconciled again once it exists');
  });

  describe('while deleting', () => {
    async function deletingMachine(a: FakeActuator) {
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      for (let i = 0; i < 3; i++) await env.reconcile('m1');
      await env.client.create(Nodes, { metadata: { name: 'node-1' } });
      await env.client.delete(Machines, { namespace: NS, name: 'm1' });
      await env.reconcile('m1');
      const conditions = [
        ...(env.get('m1')?.status?.conditions ?? []),
        { type: DrainedCondition, status: 'True' as const },
      ];
      await env.client.patch(
        Machines,
        { namespace: NS, name: 'm1' },
        { type: 'merge', body: { status: { conditions } } },
        { subresource: 'status' },
      );
      return env;
    }

    it('keeps the finalizer and the instance, and says why in the condition and a FailedDelete Warning', async () => {
      const a = new FakeActuator();
      const env = await deletingMachine(a);
      a.failNext('delete', missingCredentials);
      expect(await env.reconcile('m1')).to.deep.equal({ requeueAfterMs: 1_000 });
      const m = env.get('m1');
      expect(m?.metadata.finalizers).to.include(MachineFinalizer);
      expect(m?.status?.phase).to.equal('Deleting');
      expect(a.listInstances().filter((i) => i.state !== 'terminated')).to.have.length(1);
      expect(cond(m)?.message).to.equal(
        `fake credentials secret ${NS}/cloud-credentials not found; the instance is terminated and the finalizer removed once it exists`,
      );
      expect(env.events.list.map((e) => e.reason)).to.include('FailedDelete');
    });

    it('terminates the instance and removes the finalizer once the Secret is there', async () => {
      const a = new FakeActuator();
      const env = await deletingMachine(a);
      a.failNext('delete', missingCredentials);
      await env.reconcile('m1');
      env.reconciler.retryNow({ namespace: NS, name: 'm1' });
      await env.reconcile('m1');
      expect(a.callCount('delete')).to.equal(2);
      expect(env.get('m1')).to.equal(undefined);
    });
  });
});
