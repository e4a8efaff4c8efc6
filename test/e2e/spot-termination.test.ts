// A spot/preemptible reclaim end to end, on AWS and on GCP: the local control plane, the cloud emulator, the
// kubelet simulator, the provider's controllers with the MachineSet and MachineHealthCheck controllers, the
// machine-api-termination-handler MachineHealthCheck from manifests/, and the termination-handler binary
// (in-process, given only its flags and the metadata endpoint variable, as its DaemonSet pod would be). The
// cloud announces the reclaim → the handler marks the Node Terminating → the MachineHealthCheck deletes the
// Machine → it is drained and its instance terminated within the notice period → the MachineSet replaces it.
import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import {
  addMachineHealthCheckController,
  MachineHealthChecks,
  MachineSets,
  Nodes,
  type KubeObject,
  type Machine,
  type MachineSet,
  type Manager,
  type KubeClient,
} from '../../lib/index.js';
import {
  FAST_MACHINE_CONTROLLER,
  eventually,
  machineSetFor,
  startProviderTestBed,
  type InstanceView,
  type ProviderTestBed,
  type WiredProvider,
} from '../../sim/kit/index.js';
import { runTerminationHandlerBinary } from '../../cmd/termination-handler.js';
import { wireAwsProvider } from '../../cmd/machine-api-provider-aws.js';
import { wireGcpProvider } from '../../cmd/machine-api-provider-gcp.js';
import { startEc2Emulator, type Ec2Emulator } from '../../sim/aws/index.js';
import { startGceEmulator, type GceEmulator } from '../../sim/gcp/index.js';
import * as aws from '../providers/aws/fixtures.js';
import * as gcp from '../providers/gcp/fixtures.js';
import { readManifest, repo } from '../manifests/manifest-files.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** Nothing listens here: a handler that ignored its configured endpoint would find nothing. */
const UNUSED = { AWS_EC2_METADATA_SERVICE_ENDPOINT: 'http://127.0.0.1:9', GCE_METADATA_HOST: '127.0.0.1:9' };

interface Cloud {
  name: string;
  /** Starts the emulator with a notice period long enough to finish the remediation inside it. */
  start(): Promise<{ stop(): Promise<void>; instanceView(): InstanceView }>;
  wire(mgr: Manager, client: KubeClient): WiredProvider;
  /** A MachineSet of one interruptible Machine. */
  machineSet(): MachineSet;
  /** The metadata variable pointing at the Machine's instance, and how many requests that endpoint saw. */
  metadataEnv(m: Machine): Promise<NodeJS.ProcessEnv>;
  metadataRequests(m: Machine): number;
  /** The cloud announces the reclaim. */
  reclaim(m: Machine): void;
  /** Whether the Machine's instance is still running (not yet reclaimed nor deleted). */
  running(m: Machine): boolean;
}

let ec2: Ec2Emulator;
let gce: GceEmulator;
const instanceIdOf = (m: Machine) => (m.spec?.providerID ?? '').split('/').at(-1) ?? '';

const clouds: Cloud[] = [
  {
    name: 'AWS',
    start: async () =>
      (ec2 = await startEc2Emulator({
        clusterId: aws.CLUSTER_ID,
        timings: { bootMs: 50, terminateMs: 50, stopMs: 50, spotNoticeMs: 90_000 },
      })),
    wire: (mgr, c) =>
      wireAwsProvider(mgr, c, {
        nodeLink: true,
        endpoint: ec2.endpoint,
        retryDelayMs: () => 5,
        batchWindowMs: 2,
        maxConcurrentReconciles: 5,
        machineController: FAST_MACHINE_CONTROLLER,
        actuator: { requeueAfterMs: 200 },
      }),
    machineSet: () =>
      machineSetFor({
        name: 'spot',
        namespace: aws.NAMESPACE,
        clusterId: aws.CLUSTER_ID,
        replicas: 1,
        spec: aws.awsSpec({ spotMarketOptions: {} }),
      }),
    metadataEnv: async (m) => ({ AWS_EC2_METADATA_SERVICE_ENDPOINT: await ec2.metadataEndpoint(instanceIdOf(m)) }),
    metadataRequests: (m) => ec2.metadataRequestCount(instanceIdOf(m)),
    reclaim: (m) => ec2.spotInterrupt(instanceIdOf(m)),
    running: (m) => ec2.instance(instanceIdOf(m))?.state === 'running',
  },
  {
    name: 'GCP',
    start: async () =>
      (gce = await startGceEmulator({
        clusterId: gcp.CLUSTER_ID,
        bootDelayMs: 50,
        stopDelayMs: 50,
        deleteDelayMs: 50,
        timings: { preemptionNoticeMs: 90_000 },
      })),
    wire: (mgr, c) =>
      wireGcpProvider(mgr, c, {
        nodeLink: true,
        endpoint: gce.endpoint,
        batchWindowMs: 2,
        maxConcurrentReconciles: 5,
        machineController: FAST_MACHINE_CONTROLLER,
        actuator: { requeueAfterMs: 200 },
      }),
    machineSet: () => gcp.machineSet('spot', 1, gcp.gcpSpec({ provisioningModel: 'Spot' })),
    metadataEnv: async (m) => ({ GCE_METADATA_HOST: await gce.metadataHost(m.metadata.name ?? '') }),
    metadataRequests: (m) => gce.metadataRequestCount(m.metadata.name ?? ''),
    reclaim: (m) => gce.preempt(m.metadata.name ?? ''),
    running: (m) => gce.instance(m.metadata.name ?? '')?.status === 'RUNNING',
  },
];

class Signals extends EventEmitter {}

for (const cloud of clouds) {
  describe(`a ${cloud.name} spot reclaim, from the cloud's notice to the replacement Machine`, function () {
    this.timeout(180_000);
    let emu: { stop(): Promise<void>; instanceView(): InstanceView };
    let bed: ProviderTestBed<WiredProvider>;
    let dir: string;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'spot-termination-'));
      emu = await cloud.start();
      bed = await startProviderTestBed({
        namespace: aws.NAMESPACE,
        secrets: cloud.name === 'AWS' ? aws.defaultSecrets() : gcp.defaultSecrets(),
        instanceView: emu.instanceView(),
        wire: (mgr, c) => {
          addMachineHealthCheckController(mgr, { maxConcurrentReconciles: 2 });
          return cloud.wire(mgr, c);
        },
      });
      writeFileSync(join(dir, 'kubeconfig'), bed.env.controlPlane.kubeconfig, { mode: 0o600 });
      const [mhc] = readManifest(join(repo, 'manifests', 'termination-handler', 'machinehealthcheck.yaml'));
      const { file: _file, ...obj } = mhc!;
      await bed.env.client.create(MachineHealthChecks, obj as unknown as KubeObject);
    });
    after(async () => {
      await bed?.stop();
      await emu?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('marks the Node Terminating, remediates the Machine inside the notice period, and brings up a replacement', async () => {
      const client = bed.env.client;
      await client.create(MachineSets, cloud.machineSet());
      const [spot] = await bed.waitForMachines('spot', 1, 'Running');
      expect(spot!.metadata.labels).to.have.property('machine.openshift.io/interruptible-instance');
      const nodeName = spot!.status?.nodeRef?.name ?? '';
      const signals = new Signals();
      const handler = runTerminationHandlerBinary({
        args: [
          '--logtostderr=true',
          '--v=3',
          `--node-name=${nodeName}`,
          `--namespace=${aws.NAMESPACE}`,
          '--poll-interval-seconds=1',
        ],
        env: { ...UNUSED, KUBECONFIG: join(dir, 'kubeconfig'), ...(await cloud.metadataEnv(spot!)) },
        signals,
        logStream: new PassThrough(),
      });
      try {
        await eventually(
          "the handler asking the instance's metadata service",
          async () => cloud.metadataRequests(spot!) > 0,
          30_000,
        );
        cloud.reclaim(spot!);
        const node = await eventually(
          'Terminating=True on the node',
          async () => {
            const n = await client.get(Nodes, { name: nodeName });
            return n.status?.conditions?.some((c) => c.type === 'Terminating' && c.status === 'True') ? n : undefined;
          },
          30_000,
        );
        expect(node.status?.conditions?.find((c) => c.type === 'Terminating')?.reason).to.equal('TerminationRequested');
        const replacement = await eventually(
          'a new Running Machine in place of the reclaimed one',
          async () => {
            const ms = await bed.machinesOf('spot');
            return ms.length === 1 && ms[0]!.metadata.uid !== spot!.metadata.uid && ms[0]!.status?.phase === 'Running'
              ? ms[0]
              : undefined;
          },
          120_000,
        );
        expect(await bed.getMachine(spot!.metadata.name ?? ''), 'the reclaimed Machine is gone').to.equal(undefined);
        expect(
          cloud.running(spot!),
          "its instance was deleted by the Machine's deletion, not left for the reclaim",
        ).to.equal(false);
        expect(cloud.running(replacement)).to.equal(true);
      } finally {
        signals.emit('SIGTERM');
        expect(await handler).to.equal(0);
      }
    });
  });
}
