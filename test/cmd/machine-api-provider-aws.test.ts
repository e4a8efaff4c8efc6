// The AWS provider binary as a deployment runs it: a child process against the local control plane and
// the EC2 emulator, driven only by flags.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Leases, Machines, Namespaces, Secrets } from '../../lib/index.js';
import { startTestEnv, type TestEnv } from '../../lib/testing/index.js';
import { awsSettingsFromInfrastructure, buildProgram, LEADER_ELECTION_ID } from '../../cmd/machine-api-provider-aws.js';
import { startEc2Emulator, type Ec2Emulator } from '../../providers/aws/emulator/index.js';
import { awsSpec, CLUSTER_ID, defaultSecrets, NAMESPACE, silentLogger } from '../providers/aws/fixtures.js';
import type { KubeClient } from '../../lib/index.js';
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

describe('machine-api-provider-aws binary', function () {
  this.timeout(90_000);

  it('documents its flags, the AWS ones, the lease id and the defaults in --help', () => {
    const help = buildProgram({}).helpInformation();
    for (const flag of ['--kubeconfig', '--namespace', '--leader-elect', '--leader-elect-lease-duration', '--leader-elect-resource-namespace', '--metrics-bind-address', '--health-addr', '--max-concurrent-reconciles', '--feature-gates', '--v', '--aws-endpoint', '--aws-region']) {
      expect(help).to.include(flag);
    }
    expect(help).to.include(`"${LEADER_ELECTION_ID}"`);
    expect(help).to.match(/--namespace <ns>[\s\S]*?default: "openshift-machine-api"/);
    expect(help).to.match(/--metrics-bind-address <addr>[\s\S]*?default: ":8081"/);
    expect(help).to.match(/--health-addr <addr>[\s\S]*?default: ":9440"/);
  });

  it('rejects a malformed --aws-endpoint or --aws-region with a message naming the flag', () => {
    for (const [args, message] of [
      [['--aws-endpoint', 'not a url'], '--aws-endpoint must be an http(s) URL'],
      [['--aws-region', 'Mars'], '--aws-region must look like us-east-1'],
    ] as const) {
      let out = '';
      const program = buildProgram({}).exitOverride().configureOutput({ writeErr: (s) => (out += s), writeOut: () => {} });
      expect(() => program.parse(['node', 'x', ...args])).to.throw();
      expect(out).to.contain(message);
    }
  });

  it('takes the default region, resource tags, service endpoints and IP family from the Infrastructure', async () => {
    const infra = {
      metadata: { name: 'cluster' },
      status: {
        platformStatus: {
          aws: {
            region: 'eu-west-1',
            resourceTags: [{ key: 'team', value: 'x' }],
            serviceEndpoints: [{ name: 'ec2', url: 'https://ec2.example' }, { name: 'elasticloadbalancing', url: 'https://elb.example' }],
            ipFamily: 'DualStackIPv4Primary',
          },
        },
      },
    };
    const client = { get: async () => infra } as unknown as KubeClient;
    expect(await awsSettingsFromInfrastructure(client, silentLogger)).to.deep.equal({
      defaultRegion: 'eu-west-1',
      endpoints: { ec2: 'https://ec2.example', elb: 'https://elb.example', elbv2: 'https://elb.example' },
      actuator: { infrastructureTags: [{ name: 'team', value: 'x' }], ipFamily: 'DualStackIPv4Primary' },
    });
    const missing = { get: async () => Promise.reject(new Error('not found')) } as unknown as KubeClient;
    expect(await awsSettingsFromInfrastructure(missing, silentLogger)).to.deep.equal({});
  });

  describe('running', () => {
    let env: TestEnv;
    let emu: Ec2Emulator;
    let dir: string;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'mapa-'));
      env = await startTestEnv({ controlPlane: { kubeconfigPath: join(dir, 'kubeconfig') } });
      emu = await startEc2Emulator({ clusterId: CLUSTER_ID, timings: { bootMs: 50 } });
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
      const child = startBinary('machine-api-provider-aws', [
        '--kubeconfig', join(dir, 'kubeconfig'),
        '--aws-endpoint', emu.endpoint,
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
          spec: { providerSpec: { value: awsSpec() } },
        });
        const m = await eventually('bin-1 to get a providerID', async () => {
          const x = await env.client.get(Machines, { namespace: NAMESPACE, name: 'bin-1' });
          return x.spec?.providerID ? x : undefined;
        });
        expect(m.spec?.providerID).to.match(/^aws:\/\/\/us-east-1a\/i-/);
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
