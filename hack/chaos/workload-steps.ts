// The chaos workload: what a user does to the cluster between faults (scale a MachineSet, delete a Machine,
// make a Node NotReady so the MachineHealthCheck remediates it), each step weighted.
import { Machines, MachineSets } from '../../lib/index.js';
import { BENCH_NAMESPACE } from '../bench/environment.js';
import { MACHINESET_LABEL } from '../bench/workload.js';
import { live, machines, type Step } from './step-context.js';

export const SETS = ['chaos-a', 'chaos-b'];

export const workload: Array<readonly [string, number, Step]> = [
  [
    'scale',
    4,
    async ({ env, rng, maxReplicas }) => {
      const set = rng.pick(SETS) ?? 'chaos-a';
      const replicas = rng.int(0, maxReplicas);
      await env.client.patch(
        MachineSets,
        { namespace: BENCH_NAMESPACE, name: set },
        { type: 'merge', body: { spec: { replicas } } },
      );
      return `${set}=${replicas}`;
    },
  ],
  [
    'delete-machine',
    2,
    async ({ env, rng }) => {
      const m = rng.pick(live(await machines(env)));
      if (!m) return undefined;
      await env.client.delete(Machines, { namespace: BENCH_NAMESPACE, name: m.metadata.name ?? '' });
      return m.metadata.name;
    },
  ],
  [
    'mhc-remediation',
    2,
    async ({ env, rng, notReadyNodes }) => {
      const m = rng.pick(
        live(await machines(env)).filter(
          (x) => x.status?.nodeRef?.name && x.metadata.labels?.[MACHINESET_LABEL] === 'chaos-a',
        ),
      );
      const node = m?.status?.nodeRef?.name;
      if (!node) return undefined;
      notReadyNodes.add(node);
      await env.kubelet.setNodeReady(node, 'False');
      return node;
    },
  ],
];
