// One recorded run of the AWS scenario on the local environment, shared by the RBAC and CredentialsRequest
// checks: every API request the binaries made (by user agent, with group and namespace) and every EC2/ELB
// action the emulator served. The scenario: 3 machines to Running (leader election on), a pod drained by
// eviction, a MachineHealthCheck remediating a NotReady node, then a scale down to 1.
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { MachineHealthChecks, Machines, MachineSets, Pods, type KubeClient, type Machine } from '../../lib/index.js';
import type { RecordedRequest } from '../../sim/apiserver/index.js';
import { binariesOf, LOCAL_NAMESPACE } from '../../cmd/local/controller-binaries.js';
import { startLocalEnvironment } from '../../cmd/local/environment.js';
import { localProvider } from '../../cmd/local/providers.js';
import { eventually } from '../../sim/kit/provider-test-bed.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export interface RecordedRun {
  /** Requests by the controller binaries (not the environment, the kubelet simulator or this scenario). */
  requests: RecordedRequest[];
  /** Cloud actions and how often the emulator served each, e.g. {"RunInstances": 4, "elbv2:RegisterTargets": 1}. */
  cloudActions: Record<string, number>;
  binaryNames: string[];
}

const SET = 'worker-us-east-1a';
const inSet = `machine.openshift.io/cluster-api-machineset=${SET}`;

async function running(client: KubeClient, n: number): Promise<Machine[]> {
  return eventually(`${n} Running machines`, async () => {
    const ms = (await client.list(Machines, { namespace: LOCAL_NAMESPACE, labelSelector: inSet })).items;
    return ms.length === n && ms.every((m) => m.status?.phase === 'Running' && !m.metadata.deletionTimestamp)
      ? ms
      : undefined;
  });
}

async function record(): Promise<RecordedRun> {
  const binaryNames = binariesOf(localProvider('aws')).map((b) => b.name);
  const requests: RecordedRequest[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'recorded-run-'));
  const logs = process.env.RECORDED_RUN_LOG
    ? createWriteStream(process.env.RECORDED_RUN_LOG)
    : new PassThrough().resume();
  const env = await startLocalEnvironment({
    provider: 'aws',
    stateDir: dir,
    bootDelayMs: 400,
    terminateDelayMs: 0,
    leaderElect: true,
    logStream: logs,
    onRequest: (r) => {
      if (r.userAgent && binaryNames.includes(r.userAgent)) requests.push(r);
    },
  });
  try {
    const { client } = env;
    const machines = await running(client, 3);

    // A pod on the node of the machine the MachineHealthCheck will remediate: its drain evicts it.
    const victim = machines[0]!;
    const node = victim.status?.nodeRef?.name;
    if (!node) throw new Error(`recorded run: Running machine ${victim.metadata.name} has no nodeRef`);
    await client.create(Pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'workload', namespace: 'default' },
      spec: { nodeName: node, containers: [{ name: 'app', image: 'registry.example.com/app:1' }] },
    });
    await client.create(MachineHealthChecks, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'MachineHealthCheck',
      metadata: { name: 'fast', namespace: LOCAL_NAMESPACE },
      spec: {
        selector: { matchLabels: { 'machine.openshift.io/cluster-api-machineset': SET } },
        unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '1s' }],
        maxUnhealthy: '100%',
      },
    });
    await env.kubelet.setNodeReady(node, 'False');
    await eventually('the unhealthy machine deleted', async () => {
      const ms = (await client.list(Machines, { namespace: LOCAL_NAMESPACE, labelSelector: inSet })).items;
      return ms.some((m) => m.metadata.uid === victim.metadata.uid) ? undefined : true;
    });
    // A new instance may get the freed address, hence the same node name: it must not inherit NotReady.
    await env.kubelet.setNodeReady(node, undefined);
    await client.delete(MachineHealthChecks, { namespace: LOCAL_NAMESPACE, name: 'fast' });
    await eventually('the unhealthy machine replaced', async () => {
      const ms = await running(client, 3);
      return ms.some((m) => m.metadata.uid === victim.metadata.uid) ? undefined : ms;
    });

    await client.patch(
      MachineSets,
      { namespace: LOCAL_NAMESPACE, name: SET },
      { type: 'merge', body: { spec: { replicas: 1 } } },
    );
    await eventually('scale down to 1', async () => {
      const ms = (await client.list(Machines, { namespace: LOCAL_NAMESPACE, labelSelector: inSet })).items;
      return ms.length === 1 ? ms : undefined;
    });
    return { requests, cloudActions: env.cloud.actionCounts(), binaryNames };
  } finally {
    await env.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

let run: Promise<RecordedRun> | undefined;

/** The run, recorded once per test process. */
export function recordedRun(): Promise<RecordedRun> {
  return (run ??= record());
}
