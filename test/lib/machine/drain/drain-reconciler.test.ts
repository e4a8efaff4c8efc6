import { expect } from 'chai';
import {
  DrainedCondition,
  ExcludeNodeDrainingAnnotation,
  MachineFinalizer,
  MirrorPodAnnotation,
} from '../../../../lib/apis/constants.js';
import type { Node, Pod } from '../../../../lib/apis/core.js';
import type { Condition, Machine } from '../../../../lib/apis/machine-types.js';
import { ApiError } from '../../../../lib/client/errors.js';
import { DaemonSets, Machines, Nodes, Pods } from '../../../../lib/client/resources.js';
import { DrainReconciler } from '../../../../lib/machine/drain/drain-reconciler.js';
import { NodeDrainer, type DrainOptions } from '../../../../lib/machine/drain/node-drainer.js';
import { FakeClock } from '../../../../lib/base/fake-clock.js';
import type { Result } from '../../../../lib/runtime/types.js';
import { messageOf } from '../../../../lib/apis/errors.js';
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
  const reconciler = new DrainReconciler({
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
  return { clock, client, events, reconcile, get, drainer };
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
});
