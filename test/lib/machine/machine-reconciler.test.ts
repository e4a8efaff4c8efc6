import { expect } from 'chai';
import {
  DrainedCondition,
  InstanceExistsCondition,
  MachineClusterIDLabel,
  MachineFinalizer,
  MachineInstanceStateAnnotation,
  PausedCondition,
} from '../../../lib/apis/constants.js';
import type { Condition, Machine } from '../../../lib/apis/machine-types.js';
import { Machines, Nodes } from '../../../lib/client/resources.js';
import { InvalidMachineConfigurationError, RequeueAfterError } from '../../../lib/apis/errors.js';
import { FakeActuator } from '../../../sim/kit/fake-actuator.js';
import { currentCloudCallContext, type CloudCallContext } from '../../../lib/cloud/call-context.js';
import { CloudRateLimitedError } from '../../../lib/cloud/deferred-turns.js';
import { machine, machineEnv, NS, rctx, recordingLog } from './fixtures.js';
import { serverError } from './memory-kube.js';

const cond = (m: Machine | undefined, type: string): Condition | undefined =>
  m?.status?.conditions?.find((c) => c.type === type);

async function provisionToPhase(env: ReturnType<typeof machineEnv>, name: string, passes: number): Promise<void> {
  for (let i = 0; i < passes; i++) await env.reconcile(name);
}

describe('machine controller reconcile', () => {
  describe('validation and finalizer', () => {
    it('adds the finalizer first and goes on from the written copy in the same pass (the echo of that write costs no reconcile)', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1', { metadata: { finalizers: [] } }));
      expect(await env.reconcile('m1')).to.deep.equal({ requeueAfterMs: 30_000 });
      expect(env.get('m1')?.metadata.finalizers).to.deep.equal([MachineFinalizer]);
      expect(env.client.calls.indexOf('update machines')).to.be.lessThan(env.client.calls.indexOf('patch machines'));
      expect(a.callCount('create')).to.equal(1);
    });

    it('rejects a machine without the cluster-api-cluster label with a FailedValidate warning and backoff', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1', { metadata: { labels: {} } }));
      const err = await env.reconcile('m1').catch((e: Error) => e);
      expect(err).to.be.instanceOf(Error);
      expect((err as Error).message).to.equal(
        `m1: machine validation failed: spec.labels: Invalid value: missing ${MachineClusterIDLabel} label.`,
      );
      expect(env.events.list).to.deep.include({
        object: 'm1',
        type: 'Warning',
        reason: 'FailedValidate',
        action: 'Validate',
        message: (err as Error).message,
      });
      expect(a.calls).to.have.length(0);
    });

    it('names spec.spec.providerspec when providerSpec.value is missing, aggregating several errors', async () => {
      const env = machineEnv(new FakeActuator());
      await env.client.create(Machines, machine('m1', { metadata: { labels: {} }, spec: { providerSpec: {} } }));
      const err = (await env.reconcile('m1').catch((e: Error) => e)) as Error;
      expect(err.message).to.contain('[spec.labels: Invalid value:');
      expect(err.message).to.contain('spec.spec.providerspec: Invalid value: value field must be set]');
    });
  });

  describe('provisioning', () => {
    it('creates the instance in its first pass, writing Provisioning, InstanceExists=False/InstanceNotCreated and the new id in one status write, then goes Provisioned in the same pass and requeues after 30 s', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      env.client.calls.length = 0;
      const written: Machine[] = [];
      const patch = env.client.patch.bind(env.client);
      env.client.patch = (async (...args: Parameters<typeof patch>) => {
        const out = await patch(...args);
        if (args[3]?.subresource === 'status') written.push(structuredClone(out));
        return out;
      }) as typeof patch;
      expect(await env.reconcile('m1')).to.deep.equal({ requeueAfterMs: 30_000 });
      expect(a.callCount('create')).to.equal(1);
      // The write right after the create: what it learnt, before anything else can fail.
      const first = written[0];
      expect(first?.status?.phase).to.equal('Provisioning');
      expect(first?.spec?.providerID).to.match(/^fake:\/\/\/fake-region-1a\/i-/);
      expect(cond(first, InstanceExistsCondition)).to.include({
        status: 'False',
        reason: 'InstanceNotCreated',
        severity: 'Warning',
        message: 'Instance has not been created',
      });
      expect(cond(first, 'Drainable')).to.include({ status: 'True' });
      expect(cond(first, 'Terminable')).to.include({ status: 'True' });
      expect(first?.status?.lastUpdated).to.be.a('string');
      // Then the pass the echo of that write used to run: the instance exists, the Machine is Provisioned.
      expect(written).to.have.length(2);
      expect(env.get('m1')?.status?.phase).to.equal('Provisioned');
      expect(cond(env.get('m1'), InstanceExistsCondition)).to.include({ status: 'True' });
      const metric = await env.registry.getSingleMetricAsString('mapi_machine_phase_transition_seconds');
      expect(metric).to.contain('phase="Provisioning"');
      expect(metric).to.contain('phase="Provisioned"');
    });

    it("makes the actuator's cloud calls in the Machine's cloud call context: a launch long in the rate line is deferred to its turn, not failed", async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      let seen: CloudCallContext | undefined;
      a.failNext('create', () => {
        seen = currentCloudCallContext();
        return new CloudRateLimitedError('us-east-1', 'mutate', 4_500);
      });
      expect(await env.reconcile('m1')).to.deep.equal({ requeueAfterMs: 4_500 });
      expect(seen).to.deep.equal({ key: env.get('m1')?.metadata.uid, deferBeyondMs: 2_000 });
      expect(env.events.reasons(), 'no FailedCreate').to.deep.equal([]);
      expect(env.get('m1')?.status?.errorMessage).to.equal(undefined);
      expect(
        env.client.count('patch machines/status'),
        'nothing learnt, nothing written: the pass at its turn writes',
      ).to.equal(0);
      expect(await env.registry.getSingleMetricAsString('mapi_instance_create_failed')).to.not.contain('name="m1"');
    });

    it('keeps Provisioning on record when create fails before anything exists', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      a.failNext('create', new Error('cloud: InternalError'));
      await env.reconcile('m1').catch(() => undefined);
      expect(env.get('m1')?.status?.phase).to.equal('Provisioning');
      expect(cond(env.get('m1'), InstanceExistsCondition)).to.include({
        status: 'False',
        reason: 'InstanceNotCreated',
      });
    });

    it('never forgets a created instance: the providerID lands even when the status write then fails', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      await env.reconcile('m1');
      env.client.beforeWrite = (verb, plural, sub) => {
        if (plural === 'machines' && sub === 'status') throw serverError();
      };
      // FakeActuator.create writes no status, so add an address to force a status write in the same pass.
      const origCreate = a.create.bind(a);
      a.create = async (mm, ctx) => {
        await origCreate(mm, ctx);
        mm.status = { ...mm.status, addresses: [{ type: 'InternalIP', address: '10.9.9.9' }] };
      };
      await env.reconcile('m1').catch(() => undefined);
      expect(env.get('m1')?.spec?.providerID).to.match(/^fake:\/\//);
      env.client.beforeWrite = () => {};
      env.clock.step(1000);
      await env.reconcile('m1');
      expect(a.countInstancesFor(env.get('m1')!)).to.equal(1);
      expect(a.allInstances()).to.have.length(1);
    });

    it('never forgets a created instance: its id lands even when someone else changed the machine during create', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      const origCreate = a.create.bind(a);
      a.create = async (mm, ctx) => {
        await origCreate(mm, ctx);
        mm.status = { ...mm.status, providerStatus: { instanceId: 'i-recorded' } };
        // A concurrent writer changes the conditions meanwhile, so the locked status write conflicts.
        await env.client.patch(
          Machines,
          { namespace: NS, name: 'm1' },
          { type: 'merge', body: { status: { conditions: [{ type: 'Zz', status: 'True' }] } } },
          { subresource: 'status' },
        );
      };
      // The conflict is no failure: the other writer's watch event brings the Machine back at once.
      expect(await env.reconcile('m1')).to.equal(undefined);
      expect(env.get('m1')?.status?.providerStatus).to.deep.equal({ instanceId: 'i-recorded' });
      expect(env.get('m1')?.status?.phase).to.equal('Provisioning');
      expect(cond(env.get('m1'), 'Zz'), 'the other writer keeps its condition').to.include({ status: 'True' });
    });

    it('goes Provisioned (requeue 30 s) once the instance exists, with one metadata patch and one status patch', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      // The look after the create, in the same pass, cannot record the instance yet.
      a.failNext('update', new Error('cloud busy'));
      await provisionToPhase(env, 'm1', 1);
      expect(env.get('m1')?.status?.phase).to.equal('Provisioning');
      env.client.calls.length = 0;
      const r = await env.reconcile('m1');
      expect(r).to.deep.equal({ requeueAfterMs: 30_000 });
      const m = env.get('m1');
      expect(m?.status?.phase).to.equal('Provisioned');
      expect(cond(m, InstanceExistsCondition)).to.deep.include({ status: 'True' });
      expect(cond(m, InstanceExistsCondition)?.reason).to.equal(undefined);
      expect(m?.status?.addresses).to.have.length(3);
      expect(m?.metadata.labels?.['machine.openshift.io/instance-type']).to.equal('fake.large');
      expect(m?.metadata.annotations?.[MachineInstanceStateAnnotation]).to.equal('running');
      expect(env.client.count('patch machines')).to.equal(1);
      expect(env.client.count('patch machines/status')).to.equal(1);
    });

    it('goes Running without requeue once nodeRef is set, and records phase transition metrics', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      await provisionToPhase(env, 'm1', 3);
      await env.client.create(Nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
      await env.client.patch(
        Machines,
        { namespace: NS, name: 'm1' },
        { type: 'merge', body: { status: { nodeRef: { kind: 'Node', name: 'n1' } } } },
        { subresource: 'status' },
      );
      expect(await env.reconcile('m1')).to.equal(undefined);
      expect(env.get('m1')?.status?.phase).to.equal('Running');
      const metric = await env.registry.getSingleMetricAsString('mapi_machine_phase_transition_seconds');
      for (const phase of ['Provisioning', 'Provisioned', 'Running']) expect(metric).to.contain(`phase="${phase}"`);
      expect(metric).to.contain('le="600"');
    });

    it('keeps looking (requeue 30 s) at a Running machine whose Node is gone while its instance still exists, and fails it once the instance is gone', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      await provisionToPhase(env, 'm1', 3);
      await env.client.patch(
        Machines,
        { namespace: NS, name: 'm1' },
        { type: 'merge', body: { status: { nodeRef: { kind: 'Node', name: 'gone-node' } } } },
        { subresource: 'status' },
      );
      expect(await env.reconcile('m1')).to.deep.equal({ requeueAfterMs: 30_000 });
      expect(env.get('m1')?.status?.phase).to.equal('Running');
      a.setInstanceState(a.instanceFor(env.get('m1')!)!.id, 'terminated');
      expect(await env.reconcile('m1')).to.equal(undefined);
      expect(env.get('m1')?.status?.phase).to.equal('Failed');
    });

    it('marks the machine Failed with InvalidConfiguration when create says the spec can never work', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      a.failNext(
        'create',
        new InvalidMachineConfigurationError('instanceType: no such type', {
          field: 'spec.providerSpec.value.instanceType',
        }),
      );
      expect(await env.reconcile('m1')).to.equal(undefined);
      const m = env.get('m1');
      expect(m?.status?.phase).to.equal('Failed');
      expect(m?.status?.errorReason).to.equal('InvalidConfiguration');
      expect(m?.status?.errorMessage).to.equal('instanceType: no such type');
      expect(m?.metadata.annotations?.[MachineInstanceStateAnnotation]).to.equal('Unknown');
      // Failed is terminal: nothing more is asked of the actuator.
      const before = a.calls.length;
      await env.reconcile('m1');
      expect(a.calls.length).to.equal(before);
    });

    it('logs a failed create at warning level with the error, as the reference does, whether or not it is terminal', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      await env.client.create(Machines, machine('m2'));
      const { log, lines } = recordingLog();
      a.failNext('create', new InvalidMachineConfigurationError('user data is over the limit'));
      await env.reconciler.reconcile({ namespace: NS, name: 'm1' }, { ...rctx(), log });
      a.failNext('create', new Error('throttled'));
      await env.reconciler.reconcile({ namespace: NS, name: 'm2' }, { ...rctx(), log }).catch(() => undefined);
      const warned = lines.filter((l) => l.level === 'warn' && l.msg === 'failed to create machine');
      expect(warned.map((l) => l.fields)).to.deep.equal([
        { error: 'user data is over the limit' },
        { error: 'throttled' },
      ]);
    });

    it('reaches the actuator and marks the machine Failed when its providerSpec nests 10,000 levels deep', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      const value = JSON.parse(
        `{"instanceType":"fake.large","extra":${'['.repeat(10_000)}1${']'.repeat(10_000)}}`,
      ) as Record<string, unknown>;
      await env.client.create(Machines, machine('m1', { spec: { providerSpec: { value } } }));
      a.failNext(
        'create',
        new InvalidMachineConfigurationError('extra: must not be nested', { field: 'spec.providerSpec.value.extra' }),
      );
      expect(await env.reconcile('m1')).to.equal(undefined);
      expect(env.get('m1')?.status?.phase).to.equal('Failed');
      expect(env.get('m1')?.status?.errorReason).to.equal('InvalidConfiguration');
    });

    it('retries other create errors with backoff and never marks the machine Failed', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      a.failNext('create', new Error('cloud: InternalError'));
      const err = await env.reconcile('m1').catch((e: Error) => e);
      expect((err as Error).message).to.equal('cloud: InternalError');
      expect(env.get('m1')?.status?.phase).to.equal('Provisioning');
    });

    it('requeues after the asked delay when create throws RequeueAfterError', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      a.failNext('create', new Error('wrapped', { cause: new RequeueAfterError(7_000) }));
      expect(await env.reconcile('m1')).to.deep.equal({ requeueAfterMs: 7_000 });
    });

    it('backs off (rather than dropping the machine) when create asks to requeue after 0 s', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      a.failNext('create', new Error('wrapped', { cause: new RequeueAfterError(0) }));
      const err = await env.reconcile('m1').then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).to.equal('wrapped');
    });

    it('records InstanceExists=Unknown/ErrorCheckingProvider and backs off when exists fails', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      await env.reconcile('m1');
      a.failNext('exists', new Error('throttled'));
      const err = await env.reconcile('m1').catch((e: Error) => e);
      expect((err as Error).message).to.equal('throttled');
      expect(cond(env.get('m1'), InstanceExistsCondition)).to.include({
        status: 'Unknown',
        reason: 'ErrorCheckingProvider',
        message: 'Failed to check if machine exists: throttled',
      });
    });

    it('requeues after the asked delay when exists throws RequeueAfterError (after recording the condition)', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      await env.reconcile('m1');
      a.failNext('exists', new RequeueAfterError(12_000));
      expect(await env.reconcile('m1')).to.deep.equal({ requeueAfterMs: 12_000 });
      expect(cond(env.get('m1'), InstanceExistsCondition)).to.include({
        status: 'Unknown',
        message: 'Failed to check if machine exists: requeue in: 12s',
      });
    });

    it('holds back an immediate re-trigger after a failure (no hot loop) and lets it through after the backoff', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      await env.reconcile('m1');
      for (let i = 0; i < 6; i++) {
        a.failNext('exists', new Error(`throttled ${i}`));
        await env.reconcile('m1').catch(() => undefined);
        env.clock.step(1000 * 2 ** i);
      }
      a.failNext('exists', new Error('again'));
      await env.reconcile('m1').catch(() => undefined);
      const calls = a.callCount('exists');
      const r = await env.reconcile('m1');
      expect(r?.requeueAfterMs).to.be.greaterThan(100);
      expect(a.callCount('exists')).to.equal(calls);
      env.clock.step(r!.requeueAfterMs!);
      await env.reconcile('m1');
      expect(a.callCount('exists')).to.equal(calls + 1);
    });

    it('does not hold a machine re-created under the same name to the backoff its predecessor earned', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      const failAndRemove = async (name: string, uid: string, reconcileWhileGone: boolean) => {
        await env.client.create(Machines, machine(name, { metadata: { uid } }));
        await env.reconcile(name);
        for (let i = 0; i < 10; i++) {
          a.failNext('exists', new Error('throttled'));
          await env.reconcile(name).catch(() => undefined);
          env.clock.step(5 * 2 ** i + 1);
        }
        a.failNext('exists', new Error('throttled'));
        await env.reconcile(name).catch(() => undefined);
        const gone = env.get(name)!;
        await env.client.update(Machines, { ...gone, metadata: { ...gone.metadata, finalizers: [] } });
        await env.client.delete(Machines, { namespace: NS, name });
        if (reconcileWhileGone) expect(await env.reconcile(name)).to.equal(undefined);
      };

      // Same uid again (as a restore would give): only forgetting the vanished machine lets it through.
      await failAndRemove('m1', 'uid-a', true);
      await env.client.create(Machines, machine('m1', { metadata: { uid: 'uid-a' } }));
      let before = a.callCount('exists');
      // Its instance (same uid) is still there: one look, no create.
      expect(await env.reconcile('m1')).to.deep.equal({ requeueAfterMs: 30_000 });
      expect(a.callCount('exists')).to.equal(before + 1);

      // A new uid, before the controller noticed the old one was gone.
      await failAndRemove('m2', 'uid-b', false);
      await env.client.create(Machines, machine('m2', { metadata: { uid: 'uid-c' } }));
      before = a.callCount('exists');
      // The look before the create, and the one after it in the same pass.
      expect(await env.reconcile('m2')).to.deep.equal({ requeueAfterMs: 30_000 });
      expect(a.callCount('exists')).to.equal(before + 2);
    });

    it('requeues after 30 s (not backoff) when the actuator update fails', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      await provisionToPhase(env, 'm1', 2);
      a.failNext('update', new Error('describe failed'));
      expect(await env.reconcile('m1')).to.deep.equal({ requeueAfterMs: 30_000 });
    });

    it('marks a provisioned machine whose instance vanished Failed with "can\'t find created instance"', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      await provisionToPhase(env, 'm1', 3);
      const inst = a.allInstances()[0]!;
      a.setInstanceState(inst.id, 'terminated');
      expect(await env.reconcile('m1')).to.equal(undefined);
      const m = env.get('m1');
      expect(m?.status?.phase).to.equal('Failed');
      expect(m?.status?.errorMessage).to.equal("can't find created instance");
      expect(m?.status?.errorReason).to.equal(undefined);
      expect(cond(m, InstanceExistsCondition)).to.include({
        status: 'False',
        reason: 'InstanceMissing',
        severity: 'Warning',
        message: 'Instance not found on provider',
      });
      expect(m?.status?.providerStatus).to.deep.include({ instanceState: 'Unknown' });
    });

    it('reports lifecycle hooks in Drainable/Terminable as the reference formats them', async () => {
      const env = machineEnv(new FakeActuator());
      await env.client.create(
        Machines,
        machine('m1', {
          spec: {
            providerSpec: { value: {} },
            lifecycleHooks: {
              preDrain: [
                { name: 'pre-drain', owner: 'pre-drain-owner' },
                { name: 'other-pre-drain', owner: 'other-pre-drain-owner' },
              ],
              preTerminate: [{ name: 'pre-term', owner: 'o' }],
            },
          },
        }),
      );
      await env.reconcile('m1');
      const m = env.get('m1');
      expect(cond(m, 'Drainable')).to.include({
        status: 'False',
        reason: 'HookPresent',
        severity: 'Warning',
        message:
          'Drain operation currently blocked by: [{Name:pre-drain Owner:pre-drain-owner} {Name:other-pre-drain Owner:other-pre-drain-owner}]',
      });
      expect(cond(m, 'Terminable')).to.include({
        status: 'False',
        message: 'Terminate operation currently blocked by: [{Name:pre-term Owner:o}]',
      });
      expect(m?.status?.conditions?.map((c) => c.type)).to.deep.equal(['Drainable', 'InstanceExists', 'Terminable']);
    });

    it('locks the status write so a concurrent condition change is not overwritten', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      // Left Provisioning by its first pass: the next one has conditions to write.
      a.failNext('update', new Error('cloud busy'));
      await provisionToPhase(env, 'm1', 1);
      const origExists = a.exists.bind(a);
      let raced = false;
      a.exists = async (mm, ctx) => {
        if (raced) return origExists(mm, ctx);
        raced = true;
        // Another writer adds a condition, once, while we work.
        await env.client.patch(
          Machines,
          { namespace: NS, name: 'm1' },
          {
            type: 'merge',
            body: {
              status: { conditions: [...(env.get('m1')?.status?.conditions ?? []), { type: 'Zz', status: 'True' }] },
            },
          },
          { subresource: 'status' },
        );
        return origExists(mm, ctx);
      };
      expect(await env.reconcile('m1'), 'a conflict ends the pass: the watch brings the newer copy').to.equal(
        undefined,
      );
      expect(cond(env.get('m1'), 'Zz'), 'the locked write left the other condition alone').to.include({
        status: 'True',
      });
      // The pass the other writer's watch event triggers runs at once: no backoff holds it.
      await env.reconcile('m1');
      expect(cond(env.get('m1'), 'Zz')).to.include({ status: 'True' });
      expect(env.get('m1')?.status?.phase).to.equal('Provisioned');
    });
  });

  describe('deletion', () => {
    /** A Running machine linked as NodeLink links it: its instance's Node, by name and uid. */
    async function runningMachine(
      a: FakeActuator,
      name = 'm1',
      node: { providerID?: string; refUid?: 'node' | 'none' } = {},
    ) {
      const env = machineEnv(a);
      await env.client.create(Machines, machine(name));
      await provisionToPhase(env, name, 3);
      const providerID = 'providerID' in node ? node.providerID : env.get(name)?.spec?.providerID;
      const created = await env.client.create(Nodes, {
        metadata: { name: 'node-1' },
        spec: providerID ? { providerID } : {},
      });
      const uid = node.refUid === 'none' ? undefined : created.metadata.uid;
      await env.client.patch(
        Machines,
        { namespace: NS, name },
        { type: 'merge', body: { status: { nodeRef: { kind: 'Node', name: 'node-1', uid } } } },
        { subresource: 'status' },
      );
      await env.reconcile(name);
      await env.client.delete(Machines, { namespace: NS, name });
      return env;
    }
    const markDrained = (env: ReturnType<typeof machineEnv>, name = 'm1') =>
      env.client.patch(
        Machines,
        { namespace: NS, name },
        {
          type: 'merge',
          body: {
            status: {
              conditions: [...(env.get(name)?.status?.conditions ?? []), { type: DrainedCondition, status: 'True' }],
            },
          },
        },
        { subresource: 'status' },
      );

    it('sets Deleting and waits for the drain controller before deleting the instance', async () => {
      const a = new FakeActuator();
      const env = await runningMachine(a);
      expect(await env.reconcile('m1')).to.equal(undefined);
      expect(env.get('m1')?.status?.phase).to.equal('Deleting');
      expect(a.callCount('delete')).to.equal(0);
    });

    it('waits for preTerminate hooks to be removed', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(
        Machines,
        machine('m1', {
          spec: { providerSpec: { value: {} }, lifecycleHooks: { preTerminate: [{ name: 'h', owner: 'o' }] } },
        }),
      );
      await provisionToPhase(env, 'm1', 3);
      await env.client.delete(Machines, { namespace: NS, name: 'm1' });
      await env.reconcile('m1');
      await markDrained(env);
      expect(await env.reconcile('m1')).to.equal(undefined);
      expect(a.callCount('delete')).to.equal(0);
    });

    it('deletes the instance, then the node, then removes the finalizer', async () => {
      const a = new FakeActuator();
      const env = await runningMachine(a);
      await env.reconcile('m1');
      await markDrained(env);
      expect(await env.reconcile('m1')).to.equal(undefined);
      expect(a.callCount('delete')).to.equal(1);
      expect(env.client.peek(Nodes, { name: 'node-1' })).to.equal(undefined);
      expect(env.get('m1')).to.equal(undefined);
    });

    it('terminates once the drain controller records that the drain-timeout ended the drain (Drained=False/DrainTimeout), not on a DrainError', async () => {
      const a = new FakeActuator();
      const env = await runningMachine(a);
      await env.reconcile('m1');
      const setDrained = (reason: string) =>
        env.client.patch(
          Machines,
          { namespace: NS, name: 'm1' },
          {
            type: 'merge',
            body: {
              status: {
                conditions: [
                  ...(env.get('m1')?.status?.conditions ?? []).filter((c) => c.type !== DrainedCondition),
                  { type: DrainedCondition, status: 'False', reason, severity: 'Warning' },
                ],
              },
            },
          },
          { subresource: 'status' },
        );
      await setDrained('DrainError');
      await env.reconcile('m1');
      expect(a.callCount('delete')).to.equal(0);
      await setDrained('DrainTimeout');
      await env.reconcile('m1');
      expect(a.callCount('delete')).to.equal(1);
      expect(env.get('m1')).to.equal(undefined);
    });

    describe('the Node it deletes is provably its own, never one that merely has the name in its nodeRef', () => {
      async function deleteFully(env: ReturnType<typeof machineEnv>): Promise<void> {
        await env.reconcile('m1');
        await markDrained(env);
        expect(await env.reconcile('m1')).to.equal(undefined);
        expect(env.get('m1')).to.equal(undefined);
      }

      it('deletes a Node without a providerID that is the object its nodeRef recorded (same uid)', async () => {
        const env = await runningMachine(new FakeActuator(), 'm1', { providerID: undefined });
        await deleteFully(env);
        expect(env.client.peek(Nodes, { name: 'node-1' })).to.equal(undefined);
      });

      it('deletes a Node that carries its providerID even when its nodeRef has no uid', async () => {
        const env = await runningMachine(new FakeActuator(), 'm1', { refUid: 'none' });
        await deleteFully(env);
        expect(env.client.peek(Nodes, { name: 'node-1' })).to.equal(undefined);
      });

      it('leaves the Node a new instance registered under the same name (a reused private IP), and still finishes', async () => {
        const env = await runningMachine(new FakeActuator());
        await env.reconcile('m1');
        await markDrained(env);
        // The old instance is gone; a new instance got its private IP and its kubelet registered the same name.
        await env.client.delete(Nodes, { name: 'node-1' });
        const newcomer = await env.client.create(Nodes, {
          metadata: { name: 'node-1' },
          spec: { providerID: 'fake:///zone-a/i-newcomer' },
        });
        expect(await env.reconcile('m1')).to.equal(undefined);
        expect(env.get('m1')).to.equal(undefined);
        expect(env.client.peek(Nodes, { name: 'node-1' })?.metadata.uid).to.equal(newcomer.metadata.uid);
      });

      it('leaves a Node whose providerID names another instance even if its nodeRef recorded that Node (a wrong link)', async () => {
        const env = await runningMachine(new FakeActuator(), 'm1', { providerID: 'fake:///zone-a/i-someone-else' });
        await deleteFully(env);
        expect(env.client.peek(Nodes, { name: 'node-1' })).to.not.equal(undefined);
      });

      it('leaves a Node it cannot prove is its own: no providerID on the Node and no uid in the nodeRef', async () => {
        const env = await runningMachine(new FakeActuator(), 'm1', { providerID: undefined, refUid: 'none' });
        await deleteFully(env);
        expect(env.client.peek(Nodes, { name: 'node-1' })).to.not.equal(undefined);
      });

      it('leaves a Node that replaced its own between the read and the delete (uid precondition)', async () => {
        const env = await runningMachine(new FakeActuator(), 'm1', { providerID: undefined });
        await env.reconcile('m1');
        await markDrained(env);
        env.client.beforeWrite = (verb, plural) => {
          if (verb !== 'delete' || plural !== 'nodes') return;
          env.client.beforeWrite = () => {};
          // Another Node takes the name exactly between the GET and the DELETE.
          env.client.put(Nodes, { metadata: { name: 'node-1', uid: 'uid-newcomer' } });
        };
        expect(await env.reconcile('m1')).to.equal(undefined);
        expect(env.get('m1')).to.equal(undefined);
        expect(env.client.peek(Nodes, { name: 'node-1' })?.metadata.uid).to.equal('uid-newcomer');
      });
    });

    it('follows a terminating instance from about 1 s, growing and capped, not a fixed requeueAfterMs', async () => {
      const a = new FakeActuator();
      const env = await runningMachine(a);
      await env.reconcile('m1');
      await markDrained(env);
      const origExists = a.exists.bind(a);
      a.exists = async () => true;
      const waits: number[] = [];
      for (let i = 0; i < 12; i++) {
        const r = await env.reconcile('m1');
        const ms = (r as { requeueAfterMs: number }).requeueAfterMs;
        waits.push(ms);
        env.clock.step(ms);
      }
      expect(waits.slice(0, 6)).to.deep.equal([1_000, 1_000, 1_000, 1_500, 2_250, 3_375]);
      expect(Math.max(...waits)).to.equal(10_000);
      expect(env.get('m1')?.metadata.finalizers).to.include(MachineFinalizer);
      a.exists = origExists;
      await env.reconcile('m1');
      expect(env.get('m1')).to.equal(undefined);
    });

    it('finishes a delete whose instance terminates in T within about T + 2 s', async () => {
      for (const terminateMs of [800, 1_500, 3_000, 4_000]) {
        const a = new FakeActuator();
        const env = await runningMachine(a);
        await env.reconcile('m1');
        await markDrained(env);
        const origExists = a.exists.bind(a);
        const terminatedAt = env.clock.now() + terminateMs;
        a.exists = async (m, ctx) => (env.clock.now() < terminatedAt ? true : origExists(m, ctx));
        const start = env.clock.now();
        for (let r = await env.reconcile('m1'); r && 'requeueAfterMs' in r; r = await env.reconcile('m1'))
          env.clock.step(r.requeueAfterMs ?? 0);
        expect(env.get('m1'), `terminate ${terminateMs} ms`).to.equal(undefined);
        expect(env.clock.now() - start, `terminate ${terminateMs} ms`).to.be.at.most(terminateMs + 2_000);
      }
    });

    it("ends quietly when a pass that started from a cache not showing the finalizer's removal finds the Machine gone", async () => {
      const a = new FakeActuator();
      const env = await runningMachine(a);
      await env.reconcile('m1');
      await markDrained(env);
      // What the cache holds after our last status write, before the deletion's watch event arrives.
      let stale: Machine | undefined;
      const update = env.client.update.bind(env.client);
      env.client.update = ((...args: Parameters<typeof update>) => {
        stale ??= structuredClone(env.get('m1'));
        return update(...args);
      }) as typeof update;
      await env.reconcile('m1');
      expect(env.get('m1')).to.equal(undefined);
      env.machines.get = () => structuredClone(stale);
      expect(await env.reconcile('m1')).to.equal(undefined);
    });

    it('still deletes a machine that became invalid (label removed) while being deleted', async () => {
      const a = new FakeActuator();
      const env = await runningMachine(a);
      await env.client.patch(
        Machines,
        { namespace: NS, name: 'm1' },
        { type: 'merge', body: { metadata: { labels: { [MachineClusterIDLabel]: null } } } },
      );
      await env.reconcile('m1');
      await markDrained(env);
      await env.reconcile('m1');
      expect(env.get('m1')).to.equal(undefined);
    });

    it('proceeds past an InvalidConfiguration delete error only for a machine without addresses', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a);
      await env.client.create(Machines, machine('m1'));
      a.failNext('create', new Error('cloud: InternalError'));
      await env.reconcile('m1').catch(() => undefined);
      await env.client.delete(Machines, { namespace: NS, name: 'm1' });
      await env.reconcile('m1');
      await markDrained(env);
      a.failNext('delete', new InvalidMachineConfigurationError('bad spec'));
      await env.reconcile('m1');
      expect(env.get('m1')).to.equal(undefined);

      const a2 = new FakeActuator();
      const env2 = await runningMachine(a2);
      await env2.reconcile('m1');
      await markDrained(env2);
      a2.failNext('delete', new InvalidMachineConfigurationError('bad spec'));
      const err = await env2.reconcile('m1').catch((e: Error) => e);
      expect((err as Error).message).to.equal('bad spec');
      expect(env2.get('m1')).to.not.equal(undefined);
    });
  });

  describe('MachineAPIMigration feature gate', () => {
    it('copies spec.authoritativeAPI to status first and stops there', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a, { migration: true });
      await env.client.create(
        Machines,
        machine('m1', { spec: { providerSpec: { value: {} }, authoritativeAPI: 'MachineAPI' } }),
      );
      await env.reconcile('m1');
      expect(env.get('m1')?.status?.authoritativeAPI).to.equal('MachineAPI');
      expect(env.get('m1')?.status?.phase).to.equal(undefined);
    });

    it('pauses a machine whose authority is ClusterAPI', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a, { migration: true });
      await env.client.create(Machines, machine('m1', { status: undefined }));
      await env.client.patch(
        Machines,
        { namespace: NS, name: 'm1' },
        { type: 'merge', body: { status: { authoritativeAPI: 'ClusterAPI' } } },
        { subresource: 'status' },
      );
      await env.reconcile('m1');
      expect(cond(env.get('m1'), PausedCondition)).to.include({
        status: 'True',
        reason: 'AuthoritativeAPINotMachineAPI',
        message: "The AuthoritativeAPI status is set to 'ClusterAPI'",
      });
      expect(a.calls).to.have.length(0);
    });

    it('marks Paused=False/Info for MachineAPI and carries on reconciling', async () => {
      const a = new FakeActuator();
      const env = machineEnv(a, { migration: true });
      await env.client.create(Machines, machine('m1'));
      await env.client.patch(
        Machines,
        { namespace: NS, name: 'm1' },
        { type: 'merge', body: { status: { authoritativeAPI: 'MachineAPI' } } },
        { subresource: 'status' },
      );
      await env.reconcile('m1');
      const m = env.get('m1');
      expect(cond(m, PausedCondition)).to.include({
        status: 'False',
        reason: 'AuthoritativeAPIMachineAPI',
        severity: 'Info',
        message: "The AuthoritativeAPI status is set to 'MachineAPI'",
      });
      expect(m?.status?.phase).to.equal('Provisioned');
    });
  });
});
