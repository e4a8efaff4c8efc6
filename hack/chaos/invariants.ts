// What must hold once faults stop and the system settles, checked against the emulator and the API.
import {
  Events,
  Leases,
  MachineHealthChecks,
  MachineInstanceTypeLabel,
  Machines,
  MachineSets,
  Nodes,
  readCommonProviderStatus,
  type Machine,
  type MachineSet,
  type Node,
  type Secret,
} from '../../lib/index.js';
import { UpToDateCondition } from '../../lib/apis/constants.js';
import { isUpToDate, stampOf } from '../../lib/machineset/rollout.js';
import { readRolloutSettings } from '../../lib/machineset/rollout-settings.js';
import { BENCH_NAMESPACE, SECRET_VALUES, type BenchEnvironment } from '../bench/environment.js';
import type { PauseEpisode } from './controller-host.js';
import type { BenchLoadBalancer, LoadBalancerMembership } from '../../sim/kit/bench-cloud.js';
import { liveInstances, MACHINE_UID_TAG_KEY, machineUidOf } from '../bench/workload.js';

export interface Violation {
  seed: number;
  invariant: string;
  detail: string;
}

export interface WorldView {
  machines: Machine[];
  machineSets: MachineSet[];
  instances: ReturnType<typeof liveInstances>;
  nodes: Node[];
  /** The load balancer one MachineSet registers with, and what is registered in it. */
  loadBalancer?: { machineSet: string; groups: LoadBalancerMembership[] };
}

export async function observe(
  env: BenchEnvironment,
  lb?: { machineSet: string; balancer: BenchLoadBalancer },
): Promise<WorldView> {
  const [machines, machineSets, nodes] = await Promise.all([
    env.client.list(Machines, { namespace: BENCH_NAMESPACE }),
    env.client.list(MachineSets, { namespace: BENCH_NAMESPACE }),
    env.client.list(Nodes, {}),
  ]);
  // Clouds that name instances after their Machine (GCE, IBM VPC) carry no uid tag: the uid comes from the name.
  const uidByName = new Map(machines.items.map((m) => [m.metadata.name ?? '', m.metadata.uid ?? '']));
  const instances = liveInstances(env.emulator).map((i) => {
    const uid = machineUidOf(i) ?? (i.machineName !== undefined ? uidByName.get(i.machineName) : undefined);
    return uid === undefined || machineUidOf(i) !== undefined
      ? i
      : { ...i, tags: [...i.tags, { key: MACHINE_UID_TAG_KEY, value: uid }] };
  });
  const loadBalancer = lb && { machineSet: lb.machineSet, groups: lb.balancer.memberships() };
  return { machines: machines.items, machineSets: machineSets.items, instances, nodes: nodes.items, loadBalancer };
}

const ownerSet = (m: Machine): string | undefined =>
  m.metadata.ownerReferences?.find((o) => o.kind === 'MachineSet' && o.controller)?.name;

/**
 * `failedAllowed`: UIDs of Machines whose instance was terminated out of band (the one legitimate way to
 * end Failed).
 */
export function checkInvariants(seed: number, w: WorldView, failedAllowed: ReadonlySet<string>): Violation[] {
  const out: Violation[] = [];
  const v = (invariant: string, detail: string) => out.push({ seed, invariant, detail });
  const instancesByUid = new Map<string, string[]>();
  for (const i of w.instances) {
    const uid = machineUidOf(i) ?? '(untagged)';
    instancesByUid.set(uid, [...(instancesByUid.get(uid) ?? []), i.instanceId]);
  }
  const uids = new Set(w.machines.map((m) => m.metadata.uid ?? ''));
  for (const m of w.machines) {
    const name = m.metadata.name ?? '';
    const ids = instancesByUid.get(m.metadata.uid ?? '') ?? [];
    if (m.status?.phase === 'Running' && ids.length !== 1)
      v('every Running Machine has exactly one instance', `${name} has ${ids.length}: ${ids.join(', ') || 'none'}`);
    if (m.status?.phase !== 'Running' && !m.metadata.deletionTimestamp && ids.length > 1)
      v('no Machine has two instances', `${name} (${m.status?.phase ?? 'no phase'}) has ${ids.join(', ')}`);
    if (m.status?.phase === 'Failed' && !failedAllowed.has(m.metadata.uid ?? '')) {
      v(
        'no Machine Failed except after an out-of-band termination',
        `${name}: ${m.status.errorReason ?? ''} ${m.status.errorMessage ?? ''}`.trim(),
      );
    }
    const entry = readCommonProviderStatus(m.status?.providerStatus).status.capacityEntry;
    const type = m.metadata.labels?.[MachineInstanceTypeLabel];
    if (m.status?.phase === 'Running' && entry && type !== entry.instanceType)
      v(
        'a Running Machine with fallbacks runs the entry it records',
        `${name} records entry ${entry.index} (${entry.instanceType}) but runs ${type ?? '(no instance-type label)'}`,
      );
    if (m.metadata.deletionTimestamp)
      v(
        'no finalizer left on a deleted object',
        `Machine ${name} deleted at ${m.metadata.deletionTimestamp} still has finalizers ${JSON.stringify(m.metadata.finalizers ?? [])}`,
      );
  }
  for (const [uid, ids] of instancesByUid) {
    if (!uids.has(uid)) v('no instance without a Machine', `${ids.join(', ')} (machine uid ${uid})`);
  }
  const machinesByProviderID = new Map<string, string[]>();
  for (const m of w.machines) {
    const id = m.spec?.providerID;
    if (id) machinesByProviderID.set(id, [...(machinesByProviderID.get(id) ?? []), m.metadata.name ?? '']);
  }
  for (const [id, names] of machinesByProviderID) {
    if (names.length > 1) v('no two Machines with one providerID', `${id}: ${names.join(', ')}`);
  }
  const nodesByName = new Map(w.nodes.map((n) => [n.metadata.name ?? '', n]));
  for (const n of w.nodes) {
    const id = n.spec?.providerID ?? '';
    if (!machinesByProviderID.has(id))
      v('no orphan Node', `Node ${n.metadata.name ?? ''} (${id || 'no providerID'}) belongs to no Machine`);
  }
  for (const m of w.machines) {
    if (m.status?.phase !== 'Running') continue;
    const ref = m.status.nodeRef?.name;
    const node = ref ? nodesByName.get(ref) : undefined;
    if (!ref)
      v(
        "every Running Machine's nodeRef names an existing Node with its providerID",
        `${m.metadata.name ?? ''} has no nodeRef`,
      );
    else if (!node)
      v(
        "every Running Machine's nodeRef names an existing Node with its providerID",
        `${m.metadata.name ?? ''}: Node ${ref} does not exist`,
      );
    else if (node.spec?.providerID !== m.spec?.providerID) {
      v(
        "every Running Machine's nodeRef names an existing Node with its providerID",
        `${m.metadata.name ?? ''} (${m.spec?.providerID ?? 'no providerID'}): Node ${ref} has ${node.spec?.providerID ?? 'no providerID'}`,
      );
    }
  }
  for (const s of w.machineSets) {
    if (s.metadata.deletionTimestamp)
      v('no finalizer left on a deleted object', `MachineSet ${s.metadata.name ?? ''} still present after deletion`);
    const want = s.spec?.replicas ?? 1;
    const have = w.machines.filter((m) => ownerSet(m) === s.metadata.name && !m.metadata.deletionTimestamp);
    if (have.length !== want)
      v(
        'the MachineSet converged to its replicas',
        `${s.metadata.name ?? ''}: ${have.length} machines, replicas ${want}`,
      );
    const rolling = readRolloutSettings(s).settings;
    if (rolling?.strategy === 'RollingUpdate') {
      const stamp = stampOf(s, rolling);
      const outdated = have.filter((m) => !isUpToDate(m, stamp));
      const condition = s.status?.conditions?.find((c) => c.type === UpToDateCondition);
      if (outdated.length > 0 || condition?.status !== 'True')
        v(
          'a RollingUpdate MachineSet converges to every Machine made from its template',
          `${s.metadata.name ?? ''}: outdated ${outdated.map((m) => m.metadata.name ?? '').join(', ') || 'none'}; UpToDate ${condition?.status ?? 'unset'} ${condition?.message ?? ''}`.trim(),
        );
    }
    const notRunning = have.filter(
      (m) =>
        m.status?.phase !== 'Running' && !(m.status?.phase === 'Failed' && failedAllowed.has(m.metadata.uid ?? '')),
    );
    if (notRunning.length > 0)
      v(
        'the MachineSet converged to its replicas',
        `${s.metadata.name ?? ''}: not Running: ${notRunning.map((m) => `${m.metadata.name ?? ''}=${m.status?.phase ?? '(none)'}`).join(', ')}`,
      );
  }
  if (w.loadBalancer) {
    // Every Running Machine of the set is served; nothing else is (a terminated, foreign or other set's instance).
    const { machineSet, groups } = w.loadBalancer;
    const want = new Set<string>();
    for (const m of w.machines) {
      if (m.status?.phase === 'Running' && !m.metadata.deletionTimestamp && ownerSet(m) === machineSet)
        for (const id of instancesByUid.get(m.metadata.uid ?? '') ?? []) want.add(id);
    }
    for (const g of groups) {
      const have = new Set(g.members);
      const missing = [...want].filter((id) => !have.has(id));
      const extra = [...have].filter((id) => !want.has(id));
      if (missing.length > 0 || extra.length > 0) {
        v(
          `the load balancer registers exactly the Running Machines of ${machineSet}`,
          `${g.group}: missing ${missing.join(', ') || 'none'}; registered but not a Running Machine's: ${extra.join(', ') || 'none'}`,
        );
      }
    }
  }
  return out;
}

/**
 * What must never be seen outside the Secrets: each planted value as written, the user data as a whole and
 * base64-encoded (what a cloud API receives), and the GCP service account's private key body.
 */
export function secretNeedles(secrets: Secret[]): Record<string, string> {
  const out: Record<string, string> = { ...SECRET_VALUES };
  for (const sec of secrets) {
    for (const [key, value] of Object.entries(sec.stringData ?? {})) {
      if (key === 'userData') {
        out['user data'] = value;
        out['user data (base64)'] = Buffer.from(value).toString('base64');
      }
      if (key === 'service_account.json') {
        const sa = JSON.parse(value) as { private_key?: string; private_key_id?: string };
        const body = (sa.private_key ?? '')
          .split('\n')
          .filter((l) => l && !l.startsWith('-----'))
          .join('');
        if (body) out['GCP private key'] = body;
        if (sa.private_key_id) out['GCP private key id'] = sa.private_key_id;
      }
    }
  }
  return out;
}

/** Logs, events and every object the controllers write or read (Secrets aside) are searched for the needles. */
export function findSecrets(
  seed: number,
  places: ReadonlyArray<readonly [string, string]>,
  needles: Record<string, string>,
): Violation[] {
  const out: Violation[] = [];
  for (const [where, text] of places) {
    for (const [what, value] of Object.entries(needles)) {
      if (text.includes(value))
        out.push({
          seed,
          invariant: 'no secret value in any log, event or object',
          detail: `${what} found in ${where}`,
        });
    }
  }
  return out;
}

export async function scanForSecrets(seed: number, env: BenchEnvironment, logs: string): Promise<Violation[]> {
  const ns = { namespace: BENCH_NAMESPACE };
  const [events, machines, machineSets, mhcs, nodes, leases] = await Promise.all([
    env.client.list(Events, ns),
    env.client.list(Machines, ns),
    env.client.list(MachineSets, ns),
    env.client.list(MachineHealthChecks, ns),
    env.client.list(Nodes, {}),
    env.client.list(Leases, ns),
  ]);
  const places: Array<[string, string]> = [
    ['controller logs', logs],
    ['events', JSON.stringify(events.items)],
    ['Machines', JSON.stringify(machines.items)],
    ['MachineSets', JSON.stringify(machineSets.items)],
    ['MachineHealthChecks', JSON.stringify(mhcs.items)],
    ['Nodes', JSON.stringify(nodes.items)],
    ['Leases', JSON.stringify(leases.items)],
  ];
  return findSecrets(seed, places, secretNeedles(env.provider.secrets(BENCH_NAMESPACE)));
}

/** A leader paused past its lease: once it resumes, none of its writes may be applied (refused before sending, or rejected). */
export function checkDeposedLeaders(seed: number, episodes: readonly PauseEpisode[]): Violation[] {
  const out: Violation[] = [];
  for (const e of episodes) {
    if (e.leaseHolderAtResume === e.leaseHolderAtPause) continue; // not deposed: it may go on leading
    const applied = e.writesAfterResume().filter((w) => w.status >= 200 && w.status < 300);
    if (applied.length > 0) {
      out.push({
        seed,
        invariant: "a deposed leader's writes are rejected, never applied",
        detail: `${e.replica}: ${applied.map((w) => `${w.method} ${w.path} ${w.status} at +${w.at - e.resumedAt} ms`).join('; ')}`,
      });
    }
  }
  return out;
}

/** A hot loop or a lost idempotency token shows as many launch calls per Machine. */
export const MAX_CREATE_CALLS_PER_MACHINE = 15;

export function checkCreateCalls(seed: number, createCalls: number, machinesCreated: number): Violation[] {
  const bound = MAX_CREATE_CALLS_PER_MACHINE * Math.max(1, machinesCreated);
  return createCalls > bound
    ? [
        {
          seed,
          invariant: `create calls per Machine stay at most ${MAX_CREATE_CALLS_PER_MACHINE}`,
          detail: `${createCalls} create calls for ${machinesCreated} Machines`,
        },
      ]
    : [];
}
