// The IBM Cloud provider binary as a deployment runs it: a child process against the local control plane and
// the VPC emulator, driven only by flags.
import { expect } from 'chai';
import { Machines, type KubeClient } from '../../lib/index.js';
import { machineFor, silentLogger } from '../../sim/kit/index.js';
import {
  buildProgram,
  endpointsOf,
  ibmEndpointsFromInfrastructure,
  LEADER_ELECTION_ID,
} from '../../cmd/machine-api-provider-ibmcloud.js';
import { startIbmVpcEmulator, type IbmVpcEmulator } from '../../sim/ibmcloud/index.js';
import { CLUSTER_ID, defaultSecrets, ibmSpec, NAMESPACE } from '../providers/ibmcloud/fixtures.js';
import {
  flagError,
  leaseHolder,
  machineWithProviderID,
  runProviderBinary,
  startBinaryCluster,
  type BinaryCluster,
} from './provider-binary-harness.js';

describe('machine-api-provider-ibmcloud binary', function () {
  this.timeout(90_000);

  it('documents its flags, the IBM Cloud endpoint ones, the lease id and the defaults in --help', () => {
    const help = buildProgram({}).helpInformation();
    for (const flag of [
      '--kubeconfig',
      '--namespace',
      '--leader-elect',
      '--leader-elect-lease-duration',
      '--metrics-bind-address',
      '--health-addr',
      '--max-concurrent-reconciles',
      '--feature-gates',
      '--ibmcloud-vpc-endpoint',
      '--ibmcloud-iam-endpoint',
    ]) {
      expect(help).to.include(flag);
    }
    expect(help).to.include(`"${LEADER_ELECTION_ID}"`);
    expect(help).to.match(/--namespace <ns>[\s\S]*?default: "openshift-machine-api"/);
    expect(help).to.match(/--health-addr <addr>[\s\S]*?default: ":9440"/);
  });

  it('rejects a malformed endpoint flag with a message naming the flag', () => {
    expect(flagError(buildProgram({}), ['--ibmcloud-iam-endpoint', 'iam.example'])).to.contain(
      '--ibmcloud-iam-endpoint must be an http(s) URL',
    );
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
    expect(fromInfra).to.deep.equal({
      iam: 'https://private.iam.example',
      vpc: 'https://private.vpc.example/v1',
      resourceManager: 'https://private.rm.example',
    });
    expect(endpointsOf({ ibmcloudVpcEndpoint: 'http://127.0.0.1:1/v1' }, fromInfra)).to.deep.equal({
      ...fromInfra,
      vpc: 'http://127.0.0.1:1/v1',
      globalTagging: undefined,
    });
    const missing = { get: async () => Promise.reject(new Error('not found')) } as unknown as KubeClient;
    expect(await ibmEndpointsFromInfrastructure(missing, silentLogger)).to.deep.equal({});
  });

  describe('running', () => {
    let cluster: BinaryCluster;
    let emu: IbmVpcEmulator;

    before(async () => {
      emu = await startIbmVpcEmulator({ clusterId: CLUSTER_ID, timings: { provisionMs: 20, bootMs: 50 } });
      cluster = await startBinaryCluster({ namespace: NAMESPACE, secrets: defaultSecrets(emu.apiKey) });
    });
    after(async () => {
      await emu?.stop();
      await cluster?.stop();
    });

    it('creates the instance of a Machine through the emulator, serves /healthz, holds its lease and exits 0 on SIGTERM', async () => {
      const run = await runProviderBinary(
        'machine-api-provider-ibmcloud',
        cluster,
        [
          '--ibmcloud-vpc-endpoint',
          emu.endpoint,
          '--ibmcloud-iam-endpoint',
          emu.iamEndpoint,
          '--ibmcloud-resource-manager-endpoint',
          emu.resourceManagerEndpoint,
          '--ibmcloud-global-tagging-endpoint',
          emu.globalTaggingEndpoint,
        ],
        async (health) => {
          expect(health).to.equal('ok');
          await cluster.env.client.create(
            Machines,
            machineFor({ name: 'bin-1', namespace: NAMESPACE, clusterId: CLUSTER_ID, spec: ibmSpec() }),
          );
          const m = await machineWithProviderID(cluster, 'bin-1');
          expect(m.spec?.providerID)
            .to.be.a('string')
            .that.satisfies((id: string) => id.startsWith(`ibm://${emu.accountId}///${CLUSTER_ID}/0717_`));
          expect(emu.instances()).to.have.length(1);
          expect(await leaseHolder(cluster, LEADER_ELECTION_ID))
            .to.be.a('string')
            .and.not.equal('');
        },
      );
      expect(run.exitCode, run.output).to.equal(0);
    });
  });
});
