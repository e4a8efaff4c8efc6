// The GCP provider binary as a deployment runs it: a child process against the local control plane and
// the GCE emulator, driven only by flags.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Leases, Machines, Namespaces, Secrets, type KubeClient } from '../../lib/index.js';
import { startTestEnv, type TestEnv } from '../../lib/testing/index.js';
import { buildProgram, gcpSettingsFromInfrastructure, LEADER_ELECTION_ID } from '../../cmd/machine-api-provider-gcp.js';
import { startGceEmulator, type GceEmulator } from '../../providers/gcp/emulator/index.js';
import { CLUSTER_ID, NAMESPACE, PROJECT, ZONE, defaultSecrets, gcpSpec, silentLogger } from '../providers/gcp/fixtures.js';
import { freePort, startBinary, waitForOk } from './binary-harness.js';

async function eventually<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 40_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('machine-api-provider-gcp binary', function () {
  this.timeout(90_000);

  it('documents its flags, --gcp-endpoint, the lease id and the defaults in --help', () => {
    const help = buildProgram({}).helpInformation();
    for (const flag of ['--kubeconfig', '--namespace', '--leader-elect', '--leader-elect-lease-duration', '--leader-elect-resource-namespace', '--metrics-bind-address', '--health-addr', '--max-concurrent-reconciles', '--feature-gates', '--v', '--gcp-endpoint']) {
      expect(help).to.include(flag);
    }
    expect(help).to.include(`"${LEADER_ELECTION_ID}"`);
    expect(help).to.match(/--namespace <ns>[\s\S]*?default: "openshift-machine-api"/);
    expect(help).to.match(/--metrics-bind-address <addr>[\s\S]*?default: ":8081"/);
    expect(help).to.match(/--health-addr <addr>[\s\S]*?default: ":9440"/);
  });

  it('rejects a malformed --gcp-endpoint with a message naming the flag', () => {
    let out = '';
    const program = buildProgram({}).exitOverride().configureOutput({ writeErr: (s) => (out += s), writeOut: () => {} });
    expect(() => program.parse(['node', 'x', '--gcp-endpoint', 'ftp://nope'])).to.throw();
    expect(out).to.contain('--gcp-endpoint must be an http(s) URL');
  });

  it('takes the default project, resource labels and tags and the compute endpoint from the Infrastructure', async () => {
    const infra = {
      metadata: { name: 'cluster' },
      status: {
        platformStatus: {
          gcp: {
            projectID: 'infra-project',
            region: 'us-central1',
            resourceLabels: [{ key: 'team', value: 'x' }],
            resourceTags: [{ parentID: 'infra-project', key: 'env', value: 'prod' }, { parentID: 'p', key: '' }],
            serviceEndpoints: [{ name: 'compute', url: 'https://compute.example' }],
          },
        },
      },
    };
    const client = { get: async () => infra } as unknown as KubeClient;
    expect(await gcpSettingsFromInfrastructure(client, silentLogger)).to.deep.equal({
      defaultProject: 'infra-project',
      endpoint: 'https://compute.example',
      actuator: { infrastructureLabels: { team: 'x' }, infrastructureTags: [{ parentID: 'infra-project', key: 'env', value: 'prod' }] },
    });
    const missing = { get: async () => Promise.reject(new Error('not found')) } as unknown as KubeClient;
    expect(await gcpSettingsFromInfrastructure(missing, silentLogger)).to.deep.equal({});
  });

  describe('running', () => {
    let env: TestEnv;
    let emu: GceEmulator;
    let dir: string;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'mapg-'));
      env = await startTestEnv({ controlPlane: { kubeconfigPath: join(dir, 'kubeconfig') } });
      emu = await startGceEmulator({ clusterId: CLUSTER_ID, bootDelayMs: 50 });
      await env.client.create(Namespaces, { metadata: { name: NAMESPACE } });
      for (const s of defaultSecrets()) await env.client.create(Secrets, s);
    });
    after(async () => {
      await emu?.stop();
      await env?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('creates the instance of a Machine through the emulator, serves /healthz, holds its lease and exits 0 on SIGTERM', async () => {
      const health = await freePort();
      const child = startBinary('machine-api-provider-gcp', [
        '--kubeconfig', join(dir, 'kubeconfig'),
        '--gcp-endpoint', emu.endpoint,
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
          spec: { providerSpec: { value: gcpSpec() } },
        });
        const m = await eventually('bin-1 to get a providerID', async () => {
          const x = await env.client.get(Machines, { namespace: NAMESPACE, name: 'bin-1' });
          return x.spec?.providerID ? x : undefined;
        });
        expect(m.spec?.providerID).to.equal(`gce://${PROJECT}/${ZONE}/bin-1`);
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
