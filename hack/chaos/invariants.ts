// What must hold once faults stop and the system settles, checked against the emulator and the API.
import { Events, Machines, MachineSets, type Machine, type MachineSet } from '../../lib/index.js';
import { BENCH_NAMESPACE, SECRET_VALUES, type BenchEnvironment } from '../bench/environment.js';
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
}

export async function observe(env: BenchEnvironment): Promise<WorldView> {
  const [machines, machineSets] = await Promise.all([
    env.client.list(Machines, { namespace: BENCH_NAMESPACE }),
    env.client.list(MachineSets, { namespace: BENCH_NAMESPACE }),
  ]);
  // Clouds that name instances after their Machine (GCE, IBM VPC) carry no uid tag: the uid comes from the name.
  const uidByName = new Map(machines.items.map((m) => [m.metadata.name ?? '', m.metadata.uid ?? '']));
  const instances = liveInstances(env.emulator).map((i) => {
    const uid = machineUidOf(i) ?? (i.machineName !== undefined ? uidByName.get(i.machineName) : undefined);
    return uid === undefined || machineUidOf(i) !== undefined ? i : { ...i, tags: [...i.tags, { key: MACHINE_UID_TAG_KEY, value: uid }] };
  });
  return { machines: machines.items, machineSets: machineSets.items, instances };
}

const ownerSet = (m: Machine): string | undefined => m.metadata.ownerReferences?.find((o) => o.kind === 'MachineSet' && o.controller)?.name;

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
    if (m.status?.phase === 'Running' && ids.length !== 1) v('every Running Machine has exactly one instance', `${name} has ${ids.length}: ${ids.join(', ') || 'none'}`);
    if (m.status?.phase !== 'Running' && !m.metadata.deletionTimestamp && ids.length > 1) v('no Machine has two instances', `${name} (${m.status?.phase ?? 'no phase'}) has ${ids.join(', ')}`);
    if (m.status?.phase === 'Failed' && !failedAllowed.has(m.metadata.uid ?? '')) {
      v('no Machine Failed except after an out-of-band termination', `${name}: ${m.status.errorReason ?? ''} ${m.status.errorMessage ?? ''}`.trim());
    }
    if (m.metadata.deletionTimestamp) v('no finalizer left on a deleted object', `Machine ${name} deleted at ${m.metadata.deletionTimestamp} still has finalizers ${JSON.stringify(m.metadata.finalizers ?? [])}`);
  }
  for (const [uid, ids] of instancesByUid) {
    if (!uids.has(uid)) v('no instance without a Machine', `${ids.join(', ')} (machine uid ${uid})`);
  }
  for (const s of w.machineSets) {
    if (s.metadata.deletionTimestamp) v('no finalizer left on a deleted object', `MachineSet ${s.metadata.name ?? ''} still present after deletion`);
    const want = s.spec?.replicas ?? 1;
    const have = w.machines.filter((m) => ownerSet(m) === s.metadata.name && !m.metadata.deletionTimestamp);
    if (have.length !== want) v('the MachineSet converged to its replicas', `${s.metadata.name ?? ''}: ${have.length} machines, replicas ${want}`);
    const notRunning = have.filter((m) => m.status?.phase !== 'Running' && !(m.status?.phase === 'Failed' && failedAllowed.has(m.metadata.uid ?? '')));
    if (notRunning.length > 0) v('the MachineSet converged to its replicas', `${s.metadata.name ?? ''}: not Running: ${notRunning.map((m) => `${m.metadata.name ?? ''}=${m.status?.phase ?? '(none)'}`).join(', ')}`);
  }
  return out;
}

/** Secret values (credentials, user data) must not appear in logs, events, or Machine errors and conditions. */
export async function scanForSecrets(seed: number, env: BenchEnvironment, logs: string): Promise<Violation[]> {
  const events = (await env.client.list(Events, { namespace: BENCH_NAMESPACE })).items;
  const machines = (await env.client.list(Machines, { namespace: BENCH_NAMESPACE })).items;
  const places: Array<[string, string]> = [
    ['controller logs', logs],
    ['events', JSON.stringify(events.map((e) => [e.reason, e.message]))],
    ['machine status', JSON.stringify(machines.map((m) => [m.status?.errorMessage, m.status?.conditions, m.status?.providerStatus]))],
  ];
  const out: Violation[] = [];
  for (const [where, text] of places) {
    for (const [what, value] of Object.entries(SECRET_VALUES)) {
      if (text.includes(value)) out.push({ seed, invariant: 'secrets never appear in logs, events or errors', detail: `${what} found in ${where}` });
    }
  }
  return out;
}
