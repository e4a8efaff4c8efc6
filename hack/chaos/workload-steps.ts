// The chaos workload: what a user does to the cluster between faults (scale a MachineSet, delete a Machine,
// make a Node NotReady so the MachineHealthCheck remediates it, change the rolling set's template or restart
// its rollout), each step weighted.
import { Machines, MachineSets } from '../../lib/index.js';
import { RolloutRestartAnnotation } from '../../lib/apis/constants.js';
import { BENCH_NAMESPACE } from '../bench/environment.js';
import { MACHINESET_LABEL } from '../bench/workload.js';
import { live, machines, type Step } from './step-context.js';

export const SETS = ['chaos-a', 'chaos-b'];
/** The set annotated RollingUpdate (surge 1, unavailable 0): a template change replaces its Machines. */
export const ROLLING_SET = 'chaos-b';
export const ROLLING_ANNOTATIONS = {
  'machine.openshift.io/rollout-strategy': 'RollingUpdate',
  'machine.openshift.io/rollout-max-surge': '1',
  'machine.openshift.io/rollout-max-unavailable': '0',
};
/** How the scale step marks a scale-down, after which the rollout monitor suspends its checks. */
export const SCALED_DOWN = ' (down)';
/**
 * Steps after which the rollout monitor suspends its checks: a scale-down (only) deletes regardless of
 * availability, as any scale-down does; a terminated instance takes a Machine out of service; a restarted control plane or a
 * deposed leader acts on what it saw before. (A Machine deleted by hand is only left out of the checks.)
 */
export const DISTURBING_STEPS = new Set([
  'scale',
  'out-of-band-termination',
  'out-of-band-termination-many',
  'control-plane-restart',
  'control-plane-kill',
  'leader-paused-past-lease',
]);

export const workload: Array<readonly [string, number, Step]> = [
  [
    'scale',
    4,
    async ({ env, rng, maxReplicas }) => {
      const set = rng.pick(SETS) ?? 'chaos-a';
      const replicas = rng.int(0, maxReplicas);
      const before = await env.client.get(MachineSets, { namespace: BENCH_NAMESPACE, name: set });
      await env.client.patch(
        MachineSets,
        { namespace: BENCH_NAMESPACE, name: set },
        { type: 'merge', body: { spec: { replicas } } },
      );
      return `${set}=${replicas}${replicas < (before.spec?.replicas ?? 0) ? SCALED_DOWN : ''}`;
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
  [
    'template-change',
    2,
    async ({ env, rng }) => {
      const revision = String(rng.int(1, 1_000_000));
      const restart = rng.chance(0.3);
      const body = restart
        ? { metadata: { annotations: { [RolloutRestartAnnotation]: revision } } }
        : { spec: { template: { metadata: { annotations: { 'chaos.machine-api-ts/revision': revision } } } } };
      await env.client.patch(MachineSets, { namespace: BENCH_NAMESPACE, name: ROLLING_SET }, { type: 'merge', body });
      return `${ROLLING_SET} ${restart ? 'rollout-restart' : 'template'}=${revision}`;
    },
  ],
];
