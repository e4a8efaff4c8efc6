import { expect } from 'chai';
import {
  DrainedCondition,
  ExcludeNodeDrainingAnnotation,
  MachineFinalizer,
  MirrorPodAnnotation,
} from '../../../../lib/apis/constants.js';
import type { Node, Pod, VolumeAttachment } from '../../../../lib/apis/core.js';
import type { Condition, Machine } from '../../../../lib/apis/machine-types.js';
import { ApiError } from '../../../../lib/client/errors.js';
import {
  DaemonSets,
  Machines,
  Nodes,
  PersistentVolumeClaims,
  Pods,
  VolumeAttachments,
} from '../../../../lib/client/resources.js';
import { DrainReconciler } from '../../../../lib/machine/drain/drain-reconciler.js';
import { NodeDrainer, type DrainOptions } from '../../../../lib/machine/drain/node-drainer.js';
import { FakeClock } from '../../../../lib/base/fake-clock.js';
import type { Result } from '../../../../lib/runtime/types.js';
import { messageOf } from '../../../../lib/apis/errors.js';
import { MachineMetrics } from '../../../../lib/machine/metrics.js';
import { isDrainFinished, isWaitingForVolumes } from '../../../../lib/machine/drain/drain-finished.js';
import { Registry } from 'prom-client';
import { ListEvents, machine, NS, quietLog, rctx, recordingLog } from '../fixtures.js';
import { MemoryInformer, MemoryKubeClient, serverError, tooManyRequests } from '../memory-kube.js';

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function drainEnv(drainOpts: DrainOptions = {}) {
  const clock = new FakeClock(Date.UTC(2026, 10, 22, 6, 0, 0));
  const client = new MemoryKubeClient();
  client.now = () => iso(clock.now());
  const machines = new MemoryInformer(client, Machines);
  const events = new ListEvents();
  const drainer = new NodeDrainer({ client, clock, log: quietLog }, drainOpts);
  const metrics = new MachineMetrics(new Registry());
  const reconciler = new DrainReconciler({
    metrics,
    client,
    machines,
    drainer,
    clock,
    events,
    retryBaseMs: 5_000,
    retryMaxMs: 1_000_000,
  });
  /** Runs one reconcile, moving the fake clock on while it sleeps (eviction backoff, pod polling). */
  const reconcile = async (name = 'm1', log = quietLog): Promise<Result | void> => {
    let done = false;
    const settled = reconciler.reconcile({ namespace: NS, name }, { ...rctx(), log }).then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    void settled.then(() => (done = true));
    for (let i = 0; i < 5_000 && !done; i++) {
      await new Promise((r) => setImmediate(r));
      if (!done) clock.step(100);
    }
    const s = await settled;
    if (!s.ok) throw s.error;
    return s.value;
  };
  const get = (name = 'm1') => client.peek(Machines, { namespace: NS, name });
  return { clock, client, events, reconcile, get, drainer, metrics };
}

async function deletingMachine(
  env: ReturnType<typeof drainEnv>,
  m: Machine = machine('m1'),
  nodeName: string | null = 'node-1',
) {
  await env.client.create(Machines, m);
  await env.client.patch(
    Machines,
    { namespace: NS, name: m.metadata.name ?? '' },
    {
      type: 'merge',
      body: { status: { phase: 'Deleting', ...(nodeName ? { nodeRef: { kind: 'Node', name: nodeName } } : {}) } },
    },
    { subresource: 'status' },
  );
  await env.client.delete(Machines, { namespace: NS, name: m.metadata.name ?? '' });
}

async function node(env: ReturnType<typeof drainEnv>, name = 'node-1', extra: Partial<Node> = {}) {
  await env.client.create(Nodes, {
    metadata: { name, labels: extra.metadata?.labels },
    spec: extra.spec,
    status: extra.status ?? { conditions: [{ type: 'Ready', status: 'True' }] },
  });
}

async function pod(
  env: ReturnType<typeof drainEnv>,
  name: string,
  extra: Partial<Pod['metadata']> = {},
  spec: Partial<NonNullable<Pod['spec']>> = {},
  phase: 'Running' | 'Succeeded' = 'Running',
) {
  return env.client.create(Pods, {
    metadata: { name, namespace: 'apps', ...extra },
    spec: { nodeName: 'node-1', containers: [{ name: 'c' }], ...spec },
    status: { phase },
  });
}

const drained = (m: Machine | undefined): Condition | undefined =>
  m?.status?.conditions?.find((c) => c.type === DrainedCondition);

describe('machine drain controller', () => {
  it('ignores machines that are not being deleted or not yet in phase Deleting', async () => {
    const env = drainEnv();
    await env.client.create(Machines, machine('m1'));
    await env.client.create(Machines, machine('m2'));
    await env.client.delete(Machines, { namespace: NS, name: 'm2' });
    expect(await env.reconcile('m1')).to.equal(undefined);
    expect(await env.reconcile('m2')).to.equal(undefined);
    expect(env.events.list).to.have.length(0);
    expect(drained(env.get('m2'))).to.equal(undefined);
  });

  it('skips the drain when the exclude-node-draining annotation is present, whatever its value', async () => {
    const env = drainEnv();
    await node(env);
    await deletingMachine(
      env,
      machine('m1', {
        metadata: { annotations: { [ExcludeNodeDrainingAnnotation]: 'false' }, finalizers: [MachineFinalizer] },
      }),
    );
    await env.reconcile();
    expect(env.events.reasons()).to.deep.equal(['DrainSkipped']);
    expect(env.events.list[0]).to.include({ type: 'Normal', action: 'Drain', message: 'Node drain skipped' });
    expect(drained(env.get())).to.include({ status: 'True', message: 'Node drain skipped' });
    expect(env.client.peek(Nodes, { name: 'node-1' })?.spec?.unschedulable).to.equal(undefined);
  });

  it('skips the drain for a machine without a nodeRef', async () => {
    const env = drainEnv();
    await deletingMachine(env, machine('m1'), null);
    await env.reconcile();
    expect(env.events.reasons()).to.deep.equal(['DrainSkipped']);
    expect(drained(env.get())).to.include({ status: 'True' });
  });

  it('is blocked by a preDrain hook: DrainBlocked event, no condition written', async () => {
    const env = drainEnv();
    await node(env);
    await deletingMachine(
      env,
      machine('m1', {
        spec: { providerSpec: { value: {} }, lifecycleHooks: { preDrain: [{ name: 'h', owner: 'o' }] } },
      }),
    );
    expect(await env.reconcile()).to.equal(undefined);
    expect(env.events.list).to.deep.equal([
      {
        object: 'm1',
        type: 'Normal',
        reason: 'DrainBlocked',
        action: 'Drain',
        message: 'Drain blocked by pre-drain hook',
      },
    ]);
    expect(drained(env.get())).to.equal(undefined);
  });

  it('cordons the node, evicts what it should, leaves DaemonSet and mirror pods, and records Drained=True', async () => {
    const env = drainEnv();
    await node(env);
    await deletingMachine(env);
    await env.client.create(DaemonSets, { metadata: { name: 'ds', namespace: 'apps' } });
    await pod(env, 'web', {
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
    });
    await pod(
      env,
      'scratch',
      { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }] },
      { volumes: [{ name: 'tmp', emptyDir: {} }] },
    );
    await pod(env, 'bare');
    await pod(env, 'agent', {
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'u2', controller: true }],
    });
    await pod(env, 'orphan-agent', {
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'gone', uid: 'u3', controller: true }],
    });
    await pod(env, 'static', { annotations: { [MirrorPodAnnotation]: 'x' } });
    await env.client.create(Pods, { metadata: { name: 'elsewhere', namespace: 'apps' }, spec: { nodeName: 'node-2' } });

    expect(await env.reconcile()).to.equal(undefined);
    expect(env.client.peek(Nodes, { name: 'node-1' })?.spec?.unschedulable).to.equal(true);
    const left = env.client
      .all(Pods)
      .map((p) => p.metadata.name)
      .sort();
    expect(left).to.deep.equal(['agent', 'elsewhere', 'static']);
    expect(env.events.reasons()).to.deep.equal(['DrainProceeds', 'Deleted', 'DrainSucceeded']);
    expect(env.events.list[1]).to.include({ message: 'Node "node-1" drained', action: 'Drain' });
    expect(env.events.list[2]).to.include({ message: 'Node drain succeeded' });
    expect(drained(env.get())).to.deep.include({ status: 'True', message: 'Drain finished successfully' });
    expect(drained(env.get())?.reason).to.equal(undefined);
  });

  it('never cordons or drains a Node whose providerID names another instance (its freed private IP was reused): DrainSkipped, Drained=True', async () => {
    const env = drainEnv();
    await node(env, 'node-1', { spec: { providerID: 'aws:///us-east-1a/i-new' } });
    await deletingMachine(
      env,
      machine('m1', { spec: { providerSpec: { value: {} }, providerID: 'aws:///us-east-1a/i-old' } }),
    );
    await pod(env, 'web', {
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
    });
    expect(await env.reconcile()).to.equal(undefined);
    expect(env.client.peek(Nodes, { name: 'node-1' })?.spec?.unschedulable).to.equal(undefined);
    expect(env.client.all(Pods).map((p) => p.metadata.name)).to.deep.equal(['web']);
    expect(env.events.list).to.deep.equal([
      {
        object: 'm1',
        type: 'Normal',
        reason: 'DrainSkipped',
        action: 'Drain',
        message: 'Node drain skipped: node "node-1" belongs to instance aws:///us-east-1a/i-new',
      },
    ]);
    expect(drained(env.get())).to.deep.include({ status: 'True', message: 'Node drain skipped' });
  });

  it('drains the Node of its own instance, whatever zone segment either providerID carries', async () => {
    const env = drainEnv();
    await node(env, 'node-1', { spec: { providerID: 'aws:///us-east-1a/i-old' } });
    await deletingMachine(env, machine('m1', { spec: { providerSpec: { value: {} }, providerID: 'aws:///i-old' } }));
    expect(await env.reconcile()).to.equal(undefined);
    expect(env.client.peek(Nodes, { name: 'node-1' })?.spec?.unschedulable).to.equal(true);
    expect(env.events.reasons()).to.deep.equal(['DrainProceeds', 'Deleted', 'DrainSucceeded']);
  });

  it('treats a node that no longer exists as drained', async () => {
    const env = drainEnv();
    await deletingMachine(env);
    await env.reconcile();
    expect(env.events.reasons()).to.deep.equal(['DrainProceeds', 'DrainSucceeded']);
    expect(drained(env.get())).to.include({ status: 'True' });
  });

  it('ends quietly when the Machine goes before its Drained condition, or a drain failure, is written (the end of a normal deletion)', async () => {
    for (const cordon of ['succeeds', 'fails']) {
      const env = drainEnv();
      await node(env);
      await deletingMachine(env);
      env.client.beforeWrite = (_verb, plural) => {
        if (plural === 'nodes' && cordon === 'fails') throw serverError('cordon refused');
        if (plural === 'machines') throw new ApiError(404, { kind: 'Status', status: 'Failure', code: 404 });
      };
      const { log, lines } = recordingLog();
      expect(await env.reconcile('m1', log), cordon).to.deep.equal({});
      expect(
        lines.filter((l) => l.level === 'error' || l.level === 'warn'),
        cordon,
      ).to.deep.equal([]);
    }
  });

  it('backs off between evictions a PodDisruptionBudget refuses, then persists Drained=False/DrainError', async () => {
    const env = drainEnv();
    await node(env);
    await deletingMachine(env);
    await pod(env, 'guarded', {
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
    });
    const attempts: number[] = [];
    env.client.evictHandler = async () => {
      attempts.push(env.clock.now());
      throw tooManyRequests();
    };
    const started = env.clock.now();
    const err = await env.reconcile().catch((e: Error) => e);
    expect(err).to.be.instanceOf(Error);
    expect((err as Error).message).to.contain('global timeout reached: 20s');
    // 500 ms doubling to 5 s inside a 20 s attempt: a handful of tries, never a hot loop.
    expect(attempts.length).to.be.within(4, 8);
    for (let i = 1; i < attempts.length; i++) expect(attempts[i]! - attempts[i - 1]!).to.be.at.least(500);
    expect(env.clock.now() - started).to.be.at.most(21_000);
    const c = drained(env.get());
    expect(c).to.include({ status: 'False', reason: 'DrainError', severity: 'Warning' });
    expect(c?.message).to.match(/^could not drain machine: /);
    expect(env.events.reasons()).to.deep.equal(['DrainProceeds', 'DrainRequeued']);
    expect(env.events.list[1]?.message).to.match(/^Node drain requeued: /);
  });

  it('holds back its own status-write re-trigger after a failure, then retries after the 5 s backoff', async () => {
    const env = drainEnv({ timeoutMs: 1_000 });
    await node(env);
    await deletingMachine(env);
    await pod(env, 'guarded', {
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
    });
    let attempts = 0;
    env.client.evictHandler = async () => {
      attempts++;
      throw tooManyRequests();
    };
    await env.reconcile().catch(() => undefined);
    const after = attempts;
    const r = (await env.reconcile()) as Result;
    expect(r.requeueAfterMs).to.be.within(1_000, 5_000);
    expect(attempts).to.equal(after);
    env.clock.step(5_000);
    env.client.evictHandler = async (key) => env.client.delete(Pods, key);
    expect(await env.reconcile()).to.equal(undefined);
    expect(drained(env.get())).to.include({ status: 'True' });
  });

  it('does not cordon a second control-plane node while another is cordoned: requeue after 20 s', async () => {
    const env = drainEnv();
    await node(env, 'node-1', { metadata: { labels: { 'node-role.kubernetes.io/master': '' } } });
    await node(env, 'cp-2', {
      metadata: { labels: { 'node-role.kubernetes.io/control-plane': '' } },
      spec: { unschedulable: true },
    });
    await deletingMachine(env);
    expect(await env.reconcile()).to.deep.equal({ requeueAfterMs: 20_000 });
    expect(env.client.peek(Nodes, { name: 'node-1' })?.spec?.unschedulable).to.equal(undefined);
    expect(drained(env.get())?.message).to.contain('drain not permitted');
  });

  it('cordons one of two control-plane nodes drained at the same moment, and refuses the other', async () => {
    const env = drainEnv();
    const master = { metadata: { labels: { 'node-role.kubernetes.io/master': '' } } };
    await node(env, 'cp-1', master);
    await node(env, 'cp-2', master);
    const signal = new AbortController().signal;
    const outcomes = await Promise.allSettled([env.drainer.drain('cp-1', signal), env.drainer.drain('cp-2', signal)]);
    const cordoned = ['cp-1', 'cp-2'].filter((name) => env.client.peek(Nodes, { name })?.spec?.unschedulable);
    expect(cordoned).to.have.length(1);
    expect(outcomes.map((o) => o.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
    const refused = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(messageOf(refused?.reason)).to.contain(`control plane node "${cordoned[0]}" is already cordoned`);
  });

  it('resumes a control-plane drain whose node is already cordoned', async () => {
    const env = drainEnv();
    await node(env, 'node-1', {
      metadata: { labels: { 'node-role.kubernetes.io/master': '' } },
      spec: { unschedulable: true },
    });
    await node(env, 'cp-2', {
      metadata: { labels: { 'node-role.kubernetes.io/master': '' } },
      spec: { unschedulable: true },
    });
    await deletingMachine(env);
    expect(await env.reconcile()).to.equal(undefined);
    expect(drained(env.get())).to.include({ status: 'True' });
  });

  it('requeues after 20 s when cordoning fails', async () => {
    const env = drainEnv();
    await node(env);
    await deletingMachine(env);
    env.client.beforeWrite = (verb, plural) => {
      if (verb === 'patch' && plural === 'nodes') throw serverError();
    };
    expect(await env.reconcile()).to.deep.equal({ requeueAfterMs: 20_000 });
    expect(drained(env.get())?.message).to.contain('cordon of node "node-1" failed');
  });

  it('on an unreachable node evicts with a 1 s grace period and skips pods already deleting for over 1 s', async () => {
    const env = drainEnv();
    await node(env, 'node-1', {
      status: { conditions: [{ type: 'Ready', status: 'Unknown', lastTransitionTime: iso(env.clock.now() - 60_000) }] },
    });
    await deletingMachine(env);
    await pod(env, 'stuck', {
      finalizers: ['x'],
      deletionTimestamp: iso(env.clock.now() - 10_000),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
    });
    await pod(env, 'web', {
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
    });
    const graces: Array<number | undefined> = [];
    env.client.evictHandler = async (key, ev) => {
      graces.push(ev.deleteOptions?.gracePeriodSeconds);
      await env.client.delete(Pods, key);
    };
    expect(await env.reconcile()).to.equal(undefined);
    expect(graces).to.deep.equal([1]);
    expect(drained(env.get())).to.include({ status: 'True' });
  });

  it('keeps honouring PodDisruptionBudgets on a node unreachable for more than 5 minutes: the blocked drain shows in Drained=False and DrainRequeued', async () => {
    const env = drainEnv();
    await node(env, 'node-1', {
      status: {
        conditions: [{ type: 'Ready', status: 'Unknown', lastTransitionTime: iso(env.clock.now() - 60 * 60_000) }],
      },
    });
    await deletingMachine(env);
    await pod(env, 'guarded', {
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
    });
    const graces: Array<number | undefined> = [];
    env.client.evictHandler = async (_key, ev) => {
      graces.push(ev.deleteOptions?.gracePeriodSeconds);
      throw tooManyRequests();
    };
    const err = (await env.reconcile().catch((e: Error) => e)) as Error;
    expect(err.message).to.contain(
      'error when evicting pods/"guarded" -n "apps": Cannot evict pod as it would violate the pod\'s disruption budget.',
    );
    expect(graces.length, 'every attempt went through the Eviction API').to.be.at.least(2);
    expect(new Set(graces)).to.deep.equal(new Set([1]));
    expect(env.client.count('delete pods'), 'no pod is deleted past its budget').to.equal(0);
    expect(env.client.all(Pods).map((p) => p.metadata.name)).to.deep.equal(['guarded']);
    const c = drained(env.get());
    expect(c).to.include({ status: 'False', reason: 'DrainError', severity: 'Warning' });
    expect(c?.message).to.contain('disruption budget');
    expect(env.events.reasons()).to.deep.equal(['DrainProceeds', 'DrainRequeued']);
    expect(env.events.list[1]?.message).to.contain('disruption budget');
  });

  it('waits for an evicted pod to be gone, and fails the attempt if it never goes', async () => {
    const env = drainEnv({ timeoutMs: 3_000 });
    await node(env);
    await deletingMachine(env);
    await pod(env, 'slow', {
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
    });
    env.client.evictHandler = async () => {}; // accepted, but the pod never terminates
    const err = (await env.reconcile().catch((e: Error) => e)) as Error;
    expect(err.message).to.contain('pod apps/slow was not deleted: global timeout reached: 3s');
  });

  describe('drain-timeout annotation', () => {
    const rs = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }];
    const timed = (timeout: string, extra: Partial<Machine['metadata']> = {}) =>
      machine('m1', {
        metadata: {
          annotations: { 'machine.openshift.io/drain-timeout': timeout },
          finalizers: [MachineFinalizer],
          ...extra,
        },
      });

    it('ends a drain a PodDisruptionBudget blocks: Drained=False/DrainTimeout, a Warning naming the pod and the budget, the metric, and the drain counts as finished', async () => {
      const env = drainEnv();
      await node(env);
      await deletingMachine(env, timed('30s'));
      await pod(env, 'guarded', { ownerReferences: rs });
      env.client.evictHandler = async () => {
        throw tooManyRequests();
      };
      // The first attempt runs its 20 s and comes back no later than the drain's deadline.
      const first = (await env.reconcile()) as Result;
      expect(first.requeueAfterMs).to.be.at.most(10_000);
      expect(drained(env.get())).to.include({ reason: 'DrainError' });
      env.clock.step(first.requeueAfterMs ?? 0);
      expect(await env.reconcile()).to.equal(undefined);
      const c = drained(env.get());
      expect(c).to.include({ status: 'False', reason: 'DrainTimeout', severity: 'Warning' });
      expect(c?.message).to.contain(
        'Node "node-1" drain did not finish within 30s (machine.openshift.io/drain-timeout)',
      );
      expect(c?.message).to.contain('apps/guarded (eviction refused by a PodDisruptionBudget');
      const warning = env.events.list.find((e) => e.reason === 'DrainTimeout');
      expect(warning).to.include({ type: 'Warning', action: 'Drain' });
      expect(warning?.message).to.contain('disruption budget');
      expect(isDrainFinished(env.get()!)).to.equal(true);
      expect((await env.metrics.drainTimeouts.get()).values).to.deep.equal([{ value: 1, labels: { namespace: NS } }]);
      // Nothing more to do for it.
      const evictions = env.client.count('evict pods');
      expect(await env.reconcile()).to.equal(undefined);
      expect(env.client.count('evict pods')).to.equal(evictions);
    });

    it('names a pod stuck terminating', async () => {
      const env = drainEnv();
      await node(env);
      await deletingMachine(env, timed('5s'));
      await pod(env, 'stuck', { ownerReferences: rs, finalizers: ['never'] });
      env.client.evictHandler = async (key) => env.client.delete(Pods, key);
      const r = (await env.reconcile()) as Result | undefined;
      if (r?.requeueAfterMs) {
        env.clock.step(r.requeueAfterMs);
        await env.reconcile();
      }
      const c = drained(env.get());
      expect(c).to.include({ reason: 'DrainTimeout' });
      expect(c?.message).to.match(/apps\/stuck \(stuck terminating for \d+s\)/);
    });

    it('measures the drain from the deletion, so a drain resumed after its deadline (a restart) ends at once', async () => {
      const env = drainEnv();
      await node(env);
      await deletingMachine(env, timed('1m'));
      await pod(env, 'guarded', { ownerReferences: rs });
      env.client.evictHandler = async () => {
        throw tooManyRequests();
      };
      env.clock.step(2 * 60_000);
      const before = env.clock.now();
      expect(await env.reconcile()).to.equal(undefined);
      expect(env.clock.now() - before, 'one pass, not a 20 s attempt').to.be.below(2_000);
      expect(drained(env.get())).to.include({ reason: 'DrainTimeout' });
    });

    it('starts the clock when the pre-drain hooks are gone, not at the deletion', async () => {
      const env = drainEnv();
      await node(env);
      await deletingMachine(env, timed('1m'));
      await pod(env, 'guarded', { ownerReferences: rs });
      env.clock.step(5 * 60_000);
      // The machine controller turned Drainable True when the last hook went, just now.
      await env.client.patch(
        Machines,
        { namespace: NS, name: 'm1' },
        {
          type: 'merge',
          body: {
            status: { conditions: [{ type: 'Drainable', status: 'True', lastTransitionTime: iso(env.clock.now()) }] },
          },
        },
        { subresource: 'status' },
      );
      env.client.evictHandler = async () => {
        throw tooManyRequests();
      };
      // Deleted 5 minutes ago with a 1 minute timeout, but the drain itself has only just begun.
      await env.reconcile();
      expect(drained(env.get())).to.include({ reason: 'DrainError' });
    });

    it('without the annotation a blocked drain never ends (the reference)', async () => {
      const env = drainEnv();
      await node(env);
      await deletingMachine(env);
      await pod(env, 'guarded', { ownerReferences: rs });
      env.client.evictHandler = async () => {
        throw tooManyRequests();
      };
      env.clock.step(60 * 60_000);
      await env.reconcile().catch(() => undefined);
      expect(drained(env.get())).to.include({ reason: 'DrainError' });
      expect(isDrainFinished(env.get()!)).to.equal(false);
    });

    it('drains a Node that comes back Ready during the drain normally: full grace periods, Drained=True', async () => {
      const env = drainEnv();
      await node(env, 'node-1', { status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } });
      await deletingMachine(env, timed('10m'));
      await pod(env, 'guarded', { ownerReferences: rs });
      const graces: Array<number | undefined> = [];
      let refuse = true;
      env.client.evictHandler = async (key, ev) => {
        graces.push(ev.deleteOptions?.gracePeriodSeconds);
        if (refuse) throw tooManyRequests();
        await env.client.delete(Pods, key);
      };
      const r = (await env.reconcile()) as Result;
      expect(new Set(graces)).to.deep.equal(new Set([1]));
      await env.client.patch(
        Nodes,
        { name: 'node-1' },
        { type: 'merge', body: { status: { conditions: [{ type: 'Ready', status: 'True' }] } } },
        { subresource: 'status' },
      );
      refuse = false;
      graces.length = 0;
      env.clock.step(r.requeueAfterMs ?? 0);
      expect(await env.reconcile()).to.equal(undefined);
      expect(graces).to.deep.equal([undefined]);
      expect(drained(env.get())).to.include({ status: 'True' });
    });

    it('ignores an unreadable value with a Warning event', async () => {
      const env = drainEnv();
      await node(env);
      await deletingMachine(env, timed('soon'));
      await env.reconcile();
      const w = env.events.list.find((e) => e.reason === 'InvalidDrainSetting');
      expect(w?.message).to.contain('machine.openshift.io/drain-timeout: Invalid value: "soon"');
      expect(drained(env.get())).to.include({ status: 'True' });
    });
  });

  describe("pods' drain annotations", () => {
    const rs = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }];

    it('evicts in drain order, never evicts skip and wait-completed pods, and says which rule applied to which pod', async () => {
      const env = drainEnv();
      await node(env);
      await deletingMachine(env);
      await pod(env, 'db', { ownerReferences: rs, annotations: { 'machine.openshift.io/drain-order': '10' } });
      await pod(env, 'web', { ownerReferences: rs });
      await pod(env, 'agent', { ownerReferences: rs, annotations: { 'machine.openshift.io/drain': 'skip' } });
      await pod(env, 'job', { ownerReferences: rs, annotations: { 'machine.openshift.io/drain': 'wait-completed' } });
      const evicted: string[] = [];
      env.client.evictHandler = async (key) => {
        evicted.push(key.name);
        await env.client.delete(Pods, key);
      };
      // The job finishes a few seconds into the drain.
      const finishing = (async () => {
        while (env.clock.now() < Date.UTC(2026, 10, 22, 6, 0, 3)) await new Promise((r) => setImmediate(r));
        await env.client.patch(
          Pods,
          { namespace: 'apps', name: 'job' },
          { type: 'merge', body: { status: { phase: 'Succeeded' } } },
          { subresource: 'status' },
        );
      })();
      expect(await env.reconcile()).to.equal(undefined);
      await finishing;
      expect(evicted).to.deep.equal(['web', 'db']);
      expect(drained(env.get())).to.include({ status: 'True' });
      const rules = env.events.list.filter((e) => e.reason === 'DrainRule').map((e) => e.message);
      expect(rules).to.have.members([
        'Pod apps/agent: machine.openshift.io/drain=skip: not evicted, not waited for',
        'Pod apps/db: evicted in drain order 10',
        'Pod apps/job: machine.openshift.io/drain=wait-completed: not evicted, waited for until it finishes (order 0)',
      ]);
      expect(
        env.client
          .all(Pods)
          .map((p) => p.metadata.name)
          .sort(),
      ).to.deep.equal(['agent', 'job']);
    });
  });

  describe('waiting for volumes to detach', () => {
    const attachment = (name: string, pv: string, nodeName = 'node-1') =>
      ({
        metadata: { name },
        spec: { attacher: 'csi.example.com', nodeName, source: { persistentVolumeName: pv } },
        status: { attached: true },
      }) as VolumeAttachment;
    const volumes = (m: Machine | undefined) => m?.status?.conditions?.find((c) => c.type === 'VolumesDetached');

    it('holds termination while a VolumeAttachment names the Node, then records VolumesDetached=True', async () => {
      const env = drainEnv();
      await node(env);
      await deletingMachine(env);
      await env.client.create(VolumeAttachments, attachment('va-1', 'pv-data'));
      const r = (await env.reconcile()) as Result;
      expect(r.requeueAfterMs).to.be.within(1, 5_000);
      expect(drained(env.get())).to.include({ status: 'True' });
      const c = volumes(env.get());
      expect(c).to.include({ status: 'False', reason: 'WaitingForVolumeDetach', severity: 'Info' });
      expect(c?.message).to.equal(
        'Waiting for 1 volume to detach from node "node-1" (at most 10m0s (machine.openshift.io/volume-detach-timeout)): pv-data',
      );
      expect(isWaitingForVolumes(env.get()!)).to.equal(true);
      expect(env.events.reasons()).to.include('WaitingForVolumeDetach');
      await env.client.delete(VolumeAttachments, { name: 'va-1' });
      expect(await env.reconcile()).to.equal(undefined);
      expect(volumes(env.get())).to.include({ status: 'True' });
      expect(isWaitingForVolumes(env.get()!)).to.equal(false);
    });

    it('gives up after volume-detach-timeout from the end of the drain, with a Warning naming the volumes', async () => {
      const env = drainEnv();
      await node(env);
      await deletingMachine(
        env,
        machine('m1', {
          metadata: {
            annotations: { 'machine.openshift.io/volume-detach-timeout': '30s' },
            finalizers: [MachineFinalizer],
          },
        }),
      );
      await env.client.create(VolumeAttachments, attachment('va-1', 'pv-b'));
      await env.client.create(VolumeAttachments, attachment('va-2', 'pv-a'));
      await env.client.create(VolumeAttachments, attachment('va-3', 'pv-other', 'node-2'));
      await env.reconcile();
      env.clock.step(29_000);
      await env.reconcile();
      expect(volumes(env.get())).to.include({ reason: 'WaitingForVolumeDetach' });
      env.clock.step(1_000);
      expect(await env.reconcile()).to.equal(undefined);
      const c = volumes(env.get());
      expect(c).to.include({ status: 'False', reason: 'VolumeDetachTimeout', severity: 'Warning' });
      expect(c?.message).to.equal(
        '2 volumes still attached to node "node-1" after 30s (machine.openshift.io/volume-detach-timeout); terminating anyway: pv-a, pv-b',
      );
      expect(env.events.list.find((e) => e.reason === 'VolumeDetachTimeout')).to.include({ type: 'Warning' });
      expect(isWaitingForVolumes(env.get()!)).to.equal(false);
    });

    it('does not wait with volume-detach-timeout 0, on an unreachable Node, or for volumes of pods left on the Node', async () => {
      const zero = drainEnv();
      await node(zero);
      await deletingMachine(
        zero,
        machine('m1', {
          metadata: {
            annotations: { 'machine.openshift.io/volume-detach-timeout': '0' },
            finalizers: [MachineFinalizer],
          },
        }),
      );
      await zero.client.create(VolumeAttachments, attachment('va-1', 'pv-data'));
      expect(await zero.reconcile()).to.equal(undefined);
      expect(volumes(zero.get())).to.equal(undefined);

      const unreachable = drainEnv();
      await node(unreachable, 'node-1', { status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } });
      await deletingMachine(unreachable);
      await unreachable.client.create(VolumeAttachments, attachment('va-1', 'pv-data'));
      expect(await unreachable.reconcile()).to.equal(undefined);
      expect(volumes(unreachable.get())).to.equal(undefined);

      const left = drainEnv();
      await node(left);
      await deletingMachine(left);
      await left.client.create(PersistentVolumeClaims, {
        metadata: { name: 'data', namespace: 'apps' },
        spec: { volumeName: 'pv-agent' },
      });
      await pod(
        left,
        'agent',
        {
          annotations: { 'machine.openshift.io/drain': 'skip' },
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
        },
        { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] },
      );
      await left.client.create(VolumeAttachments, attachment('va-1', 'pv-agent'));
      expect(await left.reconcile()).to.equal(undefined);
      expect(volumes(left.get())).to.equal(undefined);
    });
  });
});
