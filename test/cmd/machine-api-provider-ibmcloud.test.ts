// The IBM Cloud provider binary as a deployment runs it: a child process against the local control plane and
// the VPC emulator, driven only by flags.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Leases, Machines, Namespaces, Secrets, type KubeClient, type Logger } from '../../lib/index.js';
import { startTestEnv, type TestEnv } from '../../lib/testing/index.js';
import { buildProgram, endpointsOf, ibmEndpointsFromInfrastructure, LEADER_ELECTION_ID } from '../../cmd/machine-api-provider-ibmcloud.js';
import { startIbmVpcEmulator, type IbmVpcEmulator } from '../../providers/ibmcloud/emulator/index.js';
import { CLUSTER_ID, defaultSecrets, ibmSpec, NAMESPACE } from '../providers/ibmcloud/fixtures.js';
import { freePort, startBinary, waitForOk } from './binary-harness.js';

const silentLogger: Logger = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {}, child: () => silentLogger };

async function eventually<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 40_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('machine-api-provider-ibmcloud binary', function () {
  this.timeout(90_000);

  it('documents its flags, the IBM Cloud endpoint ones, the lease id and the defaults in --help', () => {
    const help = buildProgram({}).helpInformation();
    for (const flag of ['--kubeconfig', '--namespace', '--leader-elect', '--leader-elect-lease-duration', '--metrics-bind-address', '--health-addr', '--max-concurrent-reconciles', '--feature-gates', '--ibmcloud-vpc-endpoint', '--ibmcloud-iam-endpoint']) {
      expect(help).to.include(flag);
    }
    expect(help).to.include(`"${LEADER_ELECTION_ID}"`);
    expect(help).to.match(/--namespace <ns>[\s\S]*?default: "openshift-machine-api"/);
    expect(help).to.match(/--health-addr <addr>[\s\S]*?default: ":9440"/);
  });

  it('rejects a malformed endpoint flag with a message naming the flag', () => {
    let out = '';
    const program = buildProgram({}).exitOverride().configureOutput({ writeErr: (s) => (out += s), writeOut: () => {} });
    expect(() => program.parse(['node', 'x', '--ibmcloud-iam-endpoint', 'iam.example'])).to.throw();
    expect(out).to.contain('--ibmcloud-iam-endpoint must be an http(s) URL');
  });

  it('reads endpoint overrides from the Infrastructure once, and flags win over them', async () => {
    const infra = {
      metadata: { name: 'cluster' },
      status: {
        platformStatus: {
          ibmcloud: {
            serviceEndpoints: [
              { name: 'IAM', url: 'https://private.iam.example' },
              { name: 'VPC', url: 'https://private.vpc.example/v1' },
              { name: 'ResourceManager', url: 'https://private.rm.example' },
              { name: 'COS', url: 'https://cos.example' },
            ],
          },
        },
      },
    };
    const client = { get: async () => infra } as unknown as KubeClient;
    const fromInfra = await ibmEndpointsFromInfrastructure(client, silentLogger);
    expect(fromInfra).to.deep.equal({ iam: 'https://private.iam.example', vpc: 'https://private.vpc.example/v1', resourceManager: 'https://private.rm.example' });
    expect(endpointsOf({ ibmcloudVpcEndpoint: 'http://127.0.0.1:1/v1' }, fromInfra)).to.deep.equal({ ...fromInfra, vpc: 'http://127.0.0.1:1/v1', globalTagging: undefined });
    const missing = { get: async () => Promise.reject(new Error('not found')) } as unknown as KubeClient;
    expect(await ibmEndpointsFromInfrastructure(missing, silentLogger)).to.deep.equal({});
  });

  describe('running', () => {
    let env: TestEnv;
    let emu: IbmVpcEmulator;
    let dir: string;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'mapi-ibm-'));
      env = await startTestEnv({ controlPlane: { kubeconfigPath: join(dir, 'kubeconfig') } });
      emu = await startIbmVpcEmulator({ clusterId: CLUSTER_ID, timings: { provisionMs: 20, bootMs: 50 } });
      await env.client.create(Namespaces, { metadata: { name: NAMESPACE } });
      for (const s of defaultSecrets(emu.apiKey)) await env.client.create(Secrets, s);
    });
    after(async () => {
      await emu?.stop();
      await env?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('creates the instance of a Machine through the emulator, serves /healthz, holds its lease and exits 0 on SIGTERM', async () => {
      const health = await freePort();
      const child = startBinary('machine-api-provider-ibmcloud', [
        '--kubeconfig', join(dir, 'kubeconfig'),
        '--ibmcloud-vpc-endpoint', emu.endpoint,
        '--ibmcloud-iam-endpoint', emu.iamEndpoint,
        '--ibmcloud-resource-manager-endpoint', emu.resourceManagerEndpoint,
        '--ibmcloud-global-tagging-endpoint', emu.globalTaggingEndpoint,
        '--leader-elect',
        '--leader-elect-resource-namespace', NAMESPACE,
        '--leader-elect-lease-duration', '10s',
        '--health-addr', `127.0.0.1:${health}`,
        '--metrics-bind-address', '0',
      ]);
      try {
        expect(await waitForOk(`http://127.0.0.1:${health}/healthz`, child)).to.equal('ok');
        await env.client.create(Machines, {
          apiVersion: 'machine.openshift.io/v1beta1',
          kind: 'Machine',
          metadata: { name: 'bin-1', namespace: NAMESPACE, labels: { 'machine.openshift.io/cluster-api-cluster': CLUSTER_ID } },
          spec: { providerSpec: { value: ibmSpec() } },
        });
        const m = await eventually('bin-1 to get a providerID', async () => {
          const x = await env.client.get(Machines, { namespace: NAMESPACE, name: 'bin-1' });
          return x.spec?.providerID ? x : undefined;
        });
        expect(m.spec?.providerID).to.match(new RegExp(`^ibm://${emu.accountId}///${CLUSTER_ID}/0717_`));
        expect(emu.instances()).to.have.length(1);
        const lease = await env.client.get(Leases, { namespace: NAMESPACE, name: LEADER_ELECTION_ID });
        expect(lease.spec?.holderIdentity).to.be.a('string').and.not.equal('');
      } finally {
        child.process.kill('SIGTERM');
      }
      expect(await child.exited, child.output()).to.equal(0);
    });
  });
});
