// The AWS provider binary as a deployment runs it: a child process against the local control plane and
// the EC2 emulator, driven only by flags.
import { expect } from 'chai';
import { Machines } from '../../lib/index.js';
import { machineFor } from '../../sim/kit/index.js';
import {
  awsCaBundleFromCloudConfig,
  awsSettingsFromInfrastructure,
  buildProgram,
  LEADER_ELECTION_ID,
} from '../../cmd/machine-api-provider-aws.js';
import { startEc2Emulator, type Ec2Emulator } from '../../sim/aws/index.js';
import { awsSpec, CLUSTER_ID, defaultSecrets, NAMESPACE, silentLogger } from '../providers/aws/fixtures.js';
import type { KubeClient } from '../../lib/index.js';
import {
  flagError,
  leaseHolder,
  machineWithProviderID,
  runProviderBinary,
  startBinaryCluster,
  type BinaryCluster,
} from './provider-binary-harness.js';
import { parseKlogLines } from '../lib/base/support/klog-lines.js';

describe('machine-api-provider-aws binary', function () {
  this.timeout(90_000);

  it('documents its flags, the AWS ones, the lease id and the defaults in --help', () => {
    const help = buildProgram({}).helpInformation();
    for (const flag of [
      '--kubeconfig',
      '--namespace',
      '--leader-elect',
      '--leader-elect-lease-duration',
      '--leader-elect-resource-namespace',
      '--metrics-bind-address',
      '--health-addr',
      '--max-concurrent-reconciles',
      '--feature-gates',
      '--v',
      '--aws-endpoint',
      '--aws-region',
    ]) {
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
      expect(flagError(buildProgram({}), args)).to.contain(message);
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
            serviceEndpoints: [
              { name: 'ec2', url: 'https://ec2.example' },
              { name: 'elasticloadbalancing', url: 'https://elb.example' },
              { name: 'sts', url: 'https://sts.example' },
            ],
            ipFamily: 'DualStackIPv4Primary',
          },
        },
      },
    };
    const client = { get: async () => infra } as unknown as KubeClient;
    expect(await awsSettingsFromInfrastructure(client, silentLogger)).to.deep.equal({
      defaultRegion: 'eu-west-1',
      endpoints: {
        ec2: 'https://ec2.example',
        elb: 'https://elb.example',
        elbv2: 'https://elb.example',
        sts: 'https://sts.example',
      },
      actuator: { infrastructureTags: [{ name: 'team', value: 'x' }], ipFamily: 'DualStackIPv4Primary' },
    });
    const missing = { get: async () => Promise.reject(new Error('not found')) } as unknown as KubeClient;
    expect(await awsSettingsFromInfrastructure(missing, silentLogger)).to.deep.equal({});
  });

  it('trusts the ca-bundle.pem of the cloud-provider config (openshift-config-managed/kube-cloud-config), as the reference does', async () => {
    const asked: unknown[] = [];
    const withBundle = {
      get: async (_r: unknown, key: unknown) => {
        asked.push(key);
        return { metadata: { name: 'kube-cloud-config' }, data: { 'ca-bundle.pem': 'PEM' } };
      },
    } as unknown as KubeClient;
    expect(await awsCaBundleFromCloudConfig(withBundle, silentLogger)).to.deep.equal({
      source: 'ca-bundle.pem of ConfigMap openshift-config-managed/kube-cloud-config',
      pem: 'PEM',
    });
    expect(asked).to.deep.equal([{ namespace: 'openshift-config-managed', name: 'kube-cloud-config' }]);
    const without = { get: async () => ({ metadata: {}, data: { 'cloud.conf': '' } }) } as unknown as KubeClient;
    expect(await awsCaBundleFromCloudConfig(without, silentLogger)).to.equal(undefined);
    const missing = { get: async () => Promise.reject(new Error('not found')) } as unknown as KubeClient;
    expect(await awsCaBundleFromCloudConfig(missing, silentLogger)).to.equal(undefined);
  });

  describe('running', () => {
    let cluster: BinaryCluster;
    let emu: Ec2Emulator;

    before(async () => {
      cluster = await startBinaryCluster({ namespace: NAMESPACE, secrets: defaultSecrets() });
      emu = await startEc2Emulator({ clusterId: CLUSTER_ID, timings: { bootMs: 50 } });
    });
    after(async () => {
      await emu?.stop();
      await cluster?.stop();
    });

    it('creates the instance of a Machine through the emulator, serves /healthz, holds its lease, logs the release and Node the operator names, and exits 0 on SIGTERM', async () => {
      const { client } = cluster.env;
      const run = await runProviderBinary(
        'machine-api-provider-aws',
        cluster,
        ['--aws-endpoint', emu.endpoint],
        async (healthz) => {
          expect(healthz).to.equal('ok');
          await client.create(
            Machines,
            machineFor({ name: 'bin-1', namespace: NAMESPACE, clusterId: CLUSTER_ID, spec: awsSpec() }),
          );
          const m = await machineWithProviderID(cluster, 'bin-1');
          expect(m.spec?.providerID).to.match(/^aws:\/\/\/us-east-1a\/i-/);
          expect(emu.instances()).to.have.length(1);
          expect(await leaseHolder(cluster, LEADER_ELECTION_ID))
            .to.be.a('string')
            .and.not.equal('');
        },
        { RELEASE_VERSION: '4.19.7', NODE_NAME: 'master-0' },
      );
      expect(run.exitCode, run.output).to.equal(0);
      // The operator's Deployment sets both on this container (RELEASE_VERSION from its own, NODE_NAME from the downward API).
      const start = parseKlogLines(run.output).find((l) => l.msg === 'starting');
      expect(start?.fields, run.output).to.include({ releaseVersion: '4.19.7', node: 'master-0' });
    });
  });
});
