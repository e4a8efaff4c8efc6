import { expect } from 'chai';
import { createNamespace, eventually, failure, startEnv, type Env, type Json } from './helpers.js';

describe('envtest control plane: pod eviction and PodDisruptionBudgets', () => {
  let env: Env;
  const ns = 'evict';

  async function runningPod(name: string, labels: Record<string, string>, ready = 'True') {
    const pod = await env.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name, labels }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] } },
    });
    await env.core.replaceNamespacedPodStatus({
      namespace: ns,
      name,
      body: { ...pod, status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready }] } },
    });
  }
  const evict = (name: string) =>
    env.core.createNamespacedPodEviction({
      namespace: ns,
      name,
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: ns } },
    });
  const podNames = async () =>
    (await env.core.listNamespacedPod({ namespace: ns })).items.map((p: Json) => p.metadata?.name);

  before(async () => {
    env = await startEnv();
    await createNamespace(env, ns);
  });
  after(async () => env.cp.stop());

  it('deletes a pod no budget covers', async () => {
    await runningPod('free', { app: 'free' });
    await evict('free');
    expect(await podNames()).to.not.include('free');
  });

  it('answers 429 when an eviction would break the budget, and allows it while the budget has room', async () => {
    await runningPod('web-1', { app: 'web' });
    await runningPod('web-2', { app: 'web' });
    await runningPod('web-3', { app: 'web' });
    await env.policy.createNamespacedPodDisruptionBudget({
      namespace: ns,
      body: { metadata: { name: 'web' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } } },
    });
    await evict('web-1');
    const f = await failure(evict('web-2'));
    expect(f.code).to.equal(429);
    expect(f.body.reason).to.equal('TooManyRequests');
    expect(f.body.message).to.equal("Cannot evict pod as it would violate the pod's disruption budget.");
    expect(f.body.details.causes[0]).to.deep.equal({
      reason: 'DisruptionBudget',
      message: 'The disruption budget web needs 2 healthy pods and has 2 currently',
    });
    expect(await podNames()).to.include.members(['web-2', 'web-3']);
  });

  it('computes percentages over the pods that match now, and lets an unready pod go while the budget is met', async () => {
    for (const i of [1, 2, 3, 4]) await runningPod(`db-${i}`, { app: 'db' });
    await runningPod('db-unready', { app: 'db' }, 'False');
    await env.policy.createNamespacedPodDisruptionBudget({
      namespace: ns,
      body: { metadata: { name: 'db' }, spec: { maxUnavailable: '50%', selector: { matchLabels: { app: 'db' } } } },
    });
    // 5 pods: desired 5 - ceil(2.5) = 2 healthy, 4 healthy now.
    await evict('db-unready');
    // 4 pods: desired 4 - 2 = 2, healthy 4, then 3 pods: desired 3 - 2 = 1, healthy 3.
    await evict('db-1');
    await evict('db-2');
    // 2 pods: desired 2 - 1 = 1, healthy 2.
    await evict('db-3');
    // 1 pod: desired 1 - 1 = 0.
    await evict('db-4');
    expect((await podNames()).filter((n) => n?.startsWith('db-'))).to.deep.equal([]);
  });

  it('refuses an unready pod when the budget is not met without it', async () => {
    await runningPod('q-1', { app: 'q' });
    await runningPod('q-unready', { app: 'q' }, 'False');
    await env.policy.createNamespacedPodDisruptionBudget({
      namespace: ns,
      body: { metadata: { name: 'q' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'q' } } } },
    });
    expect((await failure(evict('q-unready'))).code).to.equal(429);
  });

  it('keeps PodDisruptionBudget status current, as the disruption controller would', async () => {
    await runningPod('st-1', { app: 'st' });
    await runningPod('st-2', { app: 'st' });
    await env.policy.createNamespacedPodDisruptionBudget({
      namespace: ns,
      body: { metadata: { name: 'st' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'st' } } } },
    });
    const status = await eventually(
      async () => (await env.policy.readNamespacedPodDisruptionBudget({ namespace: ns, name: 'st' })).status,
    );
    expect(status).to.include({ expectedPods: 2, currentHealthy: 2, desiredHealthy: 1, disruptionsAllowed: 1 });
    await evict('st-1');
    await eventually(
      async () =>
        (await env.policy.readNamespacedPodDisruptionBudget({ namespace: ns, name: 'st' })).status
          ?.disruptionsAllowed === 0,
    );
  });

  it('answers 404 for a missing pod', async () => {
    expect((await failure(evict('nope'))).code).to.equal(404);
  });
});
