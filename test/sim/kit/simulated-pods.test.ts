// The simulated kubelets run what is bound to their Nodes, and their Nodes report what a kubelet reports,
// against the local control plane (Pods are watched, as a kubelet watches its own).
import { expect } from 'chai';
import type { Node, Pod, VolumeAttachment } from '../../../lib/apis/core.js';
import { Namespaces, Nodes, PersistentVolumeClaims, Pods, VolumeAttachments } from '../../../lib/client/resources.js';
import type { EmulatedInstance, InstanceView } from '../../../sim/kit/instance-view.js';
import { KubeletSimulator } from '../../../sim/kit/kubelet-simulator.js';
import { eventually } from '../../../sim/kit/provider-test-bed.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';

class ScriptedView implements InstanceView {
  private instances: EmulatedInstance[] = [];
  private readonly listeners = new Set<() => void>();
  listInstances(): EmulatedInstance[] {
    return this.instances.map((i) => ({ ...i }));
  }
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  set(instances: EmulatedInstance[]): void {
    this.instances = instances;
    for (const l of this.listeners) l();
  }
}

const instance = (id: string, ip: string, state: EmulatedInstance['state'] = 'running'): EmulatedInstance => ({
  providerID: `fake:///zone-a/${id}`,
  nodeName: `ip-${ip.replaceAll('.', '-')}`,
  state,
  addresses: [{ type: 'InternalIP', address: ip }],
  labels: { 'node.kubernetes.io/instance-type': 'fake.2xlarge', 'kubernetes.io/arch': 'arm64' },
  capacity: { cpu: 8, memoryMiB: 32768, gpus: 1 },
});

const pod = (name: string, nodeName: string, extra: Record<string, unknown> = {}): Pod => ({
  metadata: { name, namespace: 'work' },
  spec: { nodeName, containers: [{ name: 'app', image: 'registry.example/app:1' }], ...extra },
});

describe('simulated kubelets', function () {
  this.timeout(60_000);
  let env: TestEnv;
  let view: ScriptedView;
  let kubelet: KubeletSimulator;

  before(async () => {
    env = await startTestEnv();
    await env.client.create(Namespaces, { metadata: { name: 'work' } });
  });
  after(async () => {
    await env?.stop();
  });
  beforeEach(async () => {
    view = new ScriptedView();
    kubelet = new KubeletSimulator({ client: env.client, view, heartbeatMs: 0 });
    await kubelet.start();
  });
  afterEach(async () => {
    await kubelet.stop();
    for (const p of (await env.client.list(Pods, { namespace: 'work' })).items)
      await env.client.delete(Pods, { namespace: 'work', name: p.metadata.name ?? '' });
    for (const n of (await env.client.list(Nodes)).items)
      await env.client.delete(Nodes, { name: n.metadata.name ?? '' });
  });

  const podNamed = (name: string) => env.client.get(Pods, { namespace: 'work', name });
  const condition = (p: Pod, type: string) =>
    (p.status as { conditions?: Array<{ type: string; status: string }> }).conditions?.find((c) => c.type === type)
      ?.status;

  it('reports nodeInfo, capacity and allocatable from the instance type, as a kubelet does', async () => {
    view.set([instance('i-1', '10.0.0.11')]);
    const node: Node = await eventually('the Node', () =>
      env.client.get(Nodes, { name: 'ip-10-0-0-11' }).catch(() => undefined),
    );
    expect(node.status?.nodeInfo).to.include({
      kubeletVersion: 'v1.31.6',
      operatingSystem: 'linux',
      architecture: 'arm64',
    });
    expect(node.status?.nodeInfo?.containerRuntimeVersion).to.match(/^cri-o:\/\//);
    expect(node.status?.capacity).to.include({ cpu: '8', memory: '32768Mi', 'nvidia.com/gpu': '1', pods: '250' });
    // The system's share (500m CPU, 1 GiB) is not allocatable to pods.
    expect(node.status?.allocatable).to.include({ cpu: '7500m', memory: '31744Mi', 'nvidia.com/gpu': '1' });
  });

  it('runs a Pod bound to its Node: Running, every condition True, containers started, pod and host IPs', async () => {
    view.set([instance('i-2', '10.0.0.12')]);
    await eventually('the Node', () => env.client.get(Nodes, { name: 'ip-10-0-0-12' }).catch(() => undefined));
    await env.client.create(Pods, pod('web-1', 'ip-10-0-0-12'));
    const running = await eventually('the Pod to run', async () => {
      const p = await podNamed('web-1');
      return p.status?.phase === 'Running' ? p : undefined;
    });
    for (const type of ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'])
      expect(condition(running, type), type).to.equal('True');
    const status = running.status as {
      hostIP?: string;
      podIP?: string;
      startTime?: string;
      containerStatuses?: Array<{ name: string; ready: boolean; state: Record<string, unknown> }>;
    };
    expect(status.hostIP).to.equal('10.0.0.12');
    expect(status.podIP).to.match(/^10\.128\./);
    expect(status.startTime).to.be.a('string');
    expect(status.containerStatuses?.[0]).to.include({ name: 'app', ready: true });
    expect(status.containerStatuses?.[0]?.state).to.have.property('running');
  });

  it('fails a Pod whose activeDeadlineSeconds passed, with DeadlineExceeded', async () => {
    view.set([instance('i-3', '10.0.0.13')]);
    await eventually('the Node', () => env.client.get(Nodes, { name: 'ip-10-0-0-13' }).catch(() => undefined));
    await env.client.create(Pods, pod('job-1', 'ip-10-0-0-13', { activeDeadlineSeconds: 1, restartPolicy: 'Never' }));
    const failed = await eventually('the Pod to fail', async () => {
      const p = await podNamed('job-1');
      return p.status?.phase === 'Failed' ? p : undefined;
    });
    expect(failed.status).to.include({ reason: 'DeadlineExceeded' });
    expect(condition(failed, 'Ready')).to.equal('False');
  });

  it('leaves a Pod on a Node it does not run Pending, and starts one bound to its NotReady Node only once the Node is Ready', async () => {
    await env.client.create(Nodes, { metadata: { name: 'someone-elses' }, spec: {} });
    await env.client.create(Pods, pod('foreign-1', 'someone-elses'));
    view.set([instance('i-4', '10.0.0.14')]);
    await eventually('the Node', () => env.client.get(Nodes, { name: 'ip-10-0-0-14' }).catch(() => undefined));
    await kubelet.setNodeReady('ip-10-0-0-14', 'False');
    await env.client.create(Pods, pod('waits-1', 'ip-10-0-0-14'));
    await new Promise((r) => setTimeout(r, 300));
    expect((await podNamed('waits-1')).status?.phase ?? 'Pending').to.equal('Pending');
    await kubelet.setNodeReady('ip-10-0-0-14', undefined);
    await eventually('the Pod to run', async () =>
      (await podNamed('waits-1')).status?.phase === 'Running' ? true : undefined,
    );
    expect((await podNamed('foreign-1')).status?.phase ?? 'Pending').to.equal('Pending');
  });

  it("attaches the volumes of a running Pod's claims to its Node (binding an unbound claim) and detaches them once it is gone", async () => {
    view.set([instance('i-5', '10.0.0.15')]);
    await eventually('the Node', () => env.client.get(Nodes, { name: 'ip-10-0-0-15' }).catch(() => undefined));
    await env.client.create(PersistentVolumeClaims, { metadata: { name: 'data', namespace: 'work' }, spec: {} });
    await env.client.create(
      Pods,
      pod('db', 'ip-10-0-0-15', { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] }),
    );
    const attached = (): Promise<VolumeAttachment[]> =>
      env.client.list(VolumeAttachments).then((l) => l.items.filter((va) => va.spec?.nodeName === 'ip-10-0-0-15'));
    const [va] = await eventually('attached', async () => {
      const l = await attached();
      return l.length === 1 && l[0]?.status?.attached ? l : undefined;
    });
    const pvc = await env.client.get(PersistentVolumeClaims, { namespace: 'work', name: 'data' });
    expect(pvc.spec?.volumeName).to.equal(`pvc-${pvc.metadata.uid}`);
    expect(va?.spec?.source?.persistentVolumeName).to.equal(pvc.spec?.volumeName);
    expect(va?.metadata.name).to.match(/^csi-[0-9a-f]{64}$/);
    await env.client.delete(Pods, { namespace: 'work', name: 'db' });
    await eventually('detached', async () => (await attached()).length === 0);
    await env.client.delete(PersistentVolumeClaims, { namespace: 'work', name: 'data' });
  });
});
