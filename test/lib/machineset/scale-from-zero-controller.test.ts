import { expect } from 'chai';
import type { MachineSet } from '../../../lib/apis/machine-types.js';
import { MachineSets } from '../../../lib/client/resources.js';
import { InvalidMachineConfigurationError } from '../../../lib/apis/errors.js';
import type { InstanceTypeCatalog, InstanceTypeInfo } from '../../../lib/machineset/instance-type-catalog.js';
import { addScaleFromZeroController } from '../../../lib/machineset/scale-from-zero-controller.js';
import { TableInstanceTypeCatalog } from '../../../lib/machineset/table-instance-type-catalog.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';
import { delegatingClient, eventually, events, newNamespace, run, settle, type Running } from './env-helpers.js';

const TYPES: InstanceTypeInfo[] = [
  { name: 'm6i.xlarge', vCPU: 4, memoryMiB: 16384, gpuCount: 0, architecture: 'amd64' },
  { name: 'm7g.large', vCPU: 2, memoryMiB: 8192, gpuCount: 0, architecture: 'arm64' },
  { name: 'g5.2xlarge', vCPU: 8, memoryMiB: 32768, gpuCount: 1, gpuType: 'nvidia.com/gpu', architecture: 'amd64' },
];

const instanceTypeOf = (ms: MachineSet): string => {
  const t = ms.spec?.template?.spec?.providerSpec?.value?.instanceType;
  if (typeof t !== 'string' || t === '') {
    throw new InvalidMachineConfigurationError('failed to get providerConfig: instanceType must be set', {
      field: 'spec.providerSpec.value.instanceType',
    });
  }
  return t;
};

/** The table catalog, counting look-ups and able to fail transiently. */
class CountingCatalog implements InstanceTypeCatalog {
  lookups = 0;
  failNext = 0;
  /** The next failures are the cloud refusing the credentials. */
  refuseNext = 0;
  private readonly table = new TableInstanceTypeCatalog(TYPES, instanceTypeOf);
  async lookup(ms: MachineSet) {
    this.lookups++;
    if (this.refuseNext > 0) {
      this.refuseNext--;
      throw Object.assign(new Error('AuthFailure: AWS was not able to validate the provided access credentials'), {
        refused: true,
      });
    }
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('RequestLimitExceeded: Request limit exceeded.');
    }
    return this.table.lookup(ms);
  }
  refusesCredentials(err: unknown): boolean {
    return (err as { refused?: boolean }).refused === true;
  }
}

function machineSet(
  ns: string,
  name: string,
  instanceType: string | undefined,
  annotations?: Record<string, string>,
): MachineSet {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineSet',
    metadata: { name, namespace: ns, annotations },
    spec: {
      replicas: 0,
      selector: { matchLabels: { set: name } },
      template: {
        metadata: { labels: { set: name } },
        spec: { providerSpec: { value: instanceType ? { instanceType } : { other: 1 } } },
      },
    },
  };
}

describe('scale-from-zero controller', function () {
  let env: TestEnv;
  let ns: string;
  let running: Running | undefined;
  let catalog: CountingCatalog;
  let patches: number;

  before(async () => {
    env = await startTestEnv();
  });
  after(async () => {
    await env.stop();
  });
  beforeEach(async () => {
    ns = await newNamespace(env.client, 'sfz');
    catalog = new CountingCatalog();
    patches = 0;
    const client = delegatingClient(env.client, {
      patch: (r, k, p, o) => {
        if (r.plural === 'machinesets') patches++;
        return env.client.patch(r, k, p, o);
      },
    });
    // One namespace per test: a manager never sees the MachineSets of earlier tests.
    const mgr = env.newManager({ client, namespace: ns });
    addScaleFromZeroController(mgr, catalog);
    running = run(mgr);
  });
  afterEach(async () => {
    await running?.stop();
  });

  const get = (name: string) => env.client.get(MachineSets, { namespace: ns, name });

  it('writes the OpenShift and upstream capacity annotations, keeping labels already there', async () => {
    await env.client.create(
      MachineSets,
      machineSet(ns, 'arm', 'm7g.large', { 'capacity.cluster-autoscaler.kubernetes.io/labels': 'team=a', keep: 'me' }),
    );
    const ms = await eventually(async () => {
      const cur = await get('arm');
      return cur.metadata.annotations?.['machine.openshift.io/vCPU'] && cur;
    });
    expect(ms.metadata.annotations).to.deep.equal({
      keep: 'me',
      'machine.openshift.io/vCPU': '2',
      'machine.openshift.io/memoryMb': '8192',
      'machine.openshift.io/GPU': '0',
      'capacity.cluster-autoscaler.kubernetes.io/labels': 'kubernetes.io/arch=arm64,team=a',
      'capacity.cluster-autoscaler.kubernetes.io/cpu': '2',
      'capacity.cluster-autoscaler.kubernetes.io/memory': '8192Mi',
      'capacity.cluster-autoscaler.kubernetes.io/gpu-count': '0',
    });
  });

  it('writes GPU count and type for a GPU instance type', async () => {
    await env.client.create(MachineSets, machineSet(ns, 'gpu', 'g5.2xlarge'));
    const ms = await eventually(async () => {
      const cur = await get('gpu');
      return cur.metadata.annotations?.['machine.openshift.io/GPU'] && cur;
    });
    expect(ms.metadata.annotations).to.include({
      'machine.openshift.io/GPU': '1',
      'capacity.cluster-autoscaler.kubernetes.io/gpu-count': '1',
      'capacity.cluster-autoscaler.kubernetes.io/gpu-type': 'nvidia.com/gpu',
      'capacity.cluster-autoscaler.kubernetes.io/memory': '32768Mi',
    });
  });

  it('patches once, and not again when nothing changed', async () => {
    await env.client.create(MachineSets, machineSet(ns, 'x', 'm6i.xlarge'));
    await eventually(async () => (await get('x')).metadata.annotations?.['machine.openshift.io/vCPU'] === '4');
    const lookupsBefore = catalog.lookups;
    // An unrelated change makes the controller look again; the annotations are already right.
    await env.client.patch(
      MachineSets,
      { namespace: ns, name: 'x' },
      { type: 'merge', body: { metadata: { labels: { touched: 'yes' } } } },
    );
    await eventually(() => catalog.lookups > lookupsBefore);
    await settle(150);
    expect(patches).to.equal(1);
  });

  it('follows a change of instance type', async () => {
    await env.client.create(MachineSets, machineSet(ns, 'y', 'm6i.xlarge'));
    await eventually(async () => (await get('y')).metadata.annotations?.['machine.openshift.io/vCPU'] === '4');
    await env.client.patch(
      MachineSets,
      { namespace: ns, name: 'y' },
      {
        type: 'merge',
        body: { spec: { template: { spec: { providerSpec: { value: { instanceType: 'm7g.large' } } } } } },
      },
    );
    const ms = await eventually(async () => {
      const cur = await get('y');
      return cur.metadata.annotations?.['machine.openshift.io/vCPU'] === '2' && cur;
    });
    expect(ms.metadata.annotations?.['capacity.cluster-autoscaler.kubernetes.io/memory']).to.equal('8192Mi');
    // As in the reference, a label already in the annotation wins the merge, even the arch written for the
    // previous type: whoever changes the architecture of a MachineSet must fix that label by hand.
    expect(ms.metadata.annotations?.['capacity.cluster-autoscaler.kubernetes.io/labels']).to.equal(
      'kubernetes.io/arch=amd64',
    );
  });

  it('reports an unknown instance type with a FailedUpdate event and writes nothing', async () => {
    await env.client.create(MachineSets, machineSet(ns, 'odd', 'z9.huge'));
    const evs = await eventually(async () => {
      const e = await events(env.client, ns, 'FailedUpdate');
      return e.length > 0 && e;
    });
    expect(evs[0]).to.deep.include({
      type: 'Warning',
      message: 'Failed to set autoscaling from zero annotations, instance type unknown',
    });
    expect(evs[0]!.involvedObject).to.deep.include({ kind: 'MachineSet', name: 'odd' });
    expect((await get('odd')).metadata.annotations).to.equal(undefined);
    expect(patches).to.equal(0);
  });

  it('reports an invalid providerSpec with a ReconcileError event and does not retry', async () => {
    await env.client.create(MachineSets, machineSet(ns, 'bad', undefined));
    const evs = await eventually(async () => {
      const e = await events(env.client, ns, 'ReconcileError');
      return e.length > 0 && e;
    });
    expect(evs[0]).to.deep.include({
      type: 'Warning',
      message: 'failed to get providerConfig: instanceType must be set',
    });
    const lookups = catalog.lookups;
    // A status change (no new generation) does not bring it back.
    await env.client.patch(
      MachineSets,
      { namespace: ns, name: 'bad' },
      { type: 'merge', body: { status: { replicas: 0 } } },
      { subresource: 'status' },
    );
    await settle(300);
    expect(catalog.lookups).to.equal(lookups);
    expect((await get('bad')).metadata.annotations).to.equal(undefined);
  });

  it('retries a transient catalog error and then writes the annotations', async () => {
    catalog.failNext = 2;
    await env.client.create(MachineSets, machineSet(ns, 'flaky', 'm6i.xlarge'));
    await eventually(
      async () => (await get('flaky')).metadata.annotations?.['machine.openshift.io/memoryMb'] === '16384',
    );
    expect(catalog.lookups).to.be.at.least(3);
    const evs = await eventually(async () => {
      const e = await events(env.client, ns, 'ReconcileError');
      return e.length > 0 && e;
    });
    expect(evs[0]!.message).to.equal('RequestLimitExceeded: Request limit exceeded.');
  });

  it('names the credentials Secret in the ReconcileError of a lookup the cloud refused, and retries', async () => {
    catalog.refuseNext = 1;
    const ms = machineSet(ns, 'refused', 'm6i.xlarge');
    ms.spec!.template!.spec!.providerSpec!.value!.credentialsSecret = { name: 'aws-cloud-credentials' };
    await env.client.create(MachineSets, ms);
    const evs = await eventually(async () => {
      const e = await events(env.client, ns, 'ReconcileError');
      return e.length > 0 && e;
    });
    expect(evs[0]!.message).to.equal(
      `AuthFailure: AWS was not able to validate the provided access credentials; the cloud refused the credentials in Secret ${ns}/aws-cloud-credentials; fix the Secret and the next reconcile uses them`,
    );
    await eventually(
      async () => (await get('refused')).metadata.annotations?.['machine.openshift.io/memoryMb'] === '16384',
    );
  });
});
