// The GCP provider binary as a deployment runs it: a child process against the local control plane and
// the GCE emulator, driven only by flags.
import { expect } from 'chai';
import { Machines, type KubeClient } from '../../lib/index.js';
import { machineFor } from '../../sim/kit/index.js';
import { buildProgram, gcpSettingsFromInfrastructure, LEADER_ELECTION_ID } from '../../cmd/machine-api-provider-gcp.js';
import { startGceEmulator, type GceEmulator } from '../../sim/gcp/index.js';
import {
  CLUSTER_ID,
  NAMESPACE,
  PROJECT,
  ZONE,
  defaultSecrets,
  gcpSpec,
  silentLogger,
} from '../providers/gcp/fixtures.js';
import {
  flagError,
  leaseHolder,
  machineWithProviderID,
  runProviderBinary,
  startBinaryCluster,
  type BinaryCluster,
} from './provider-binary-harness.js';

describe('machine-api-provider-gcp binary', function () {
  this.timeout(90_000);

  it('documents its flags, --gcp-endpoint, the lease id and the defaults in --help', () => {
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
      '--gcp-endpoint',
    ]) {
      expect(help).to.include(flag);
    }
    expect(help).to.include(`"${LEADER_ELECTION_ID}"`);
    expect(help).to.match(/--namespace <ns>[\s\S]*?default: "openshift-machine-api"/);
    expect(help).to.match(/--metrics-bind-address <addr>[\s\S]*?default: ":8081"/);
    expect(help).to.match(/--health-addr <addr>[\s\S]*?default: ":9440"/);
  });

  it('rejects a malformed --gcp-endpoint with a message naming the flag', () => {
    expect(flagError(buildProgram({}), ['--gcp-endpoint', 'ftp://nope'])).to.contain(
      '--gcp-endpoint must be an http(s) URL',
    );
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
            resourceTags: [
              { parentID: 'infra-project', key: 'env', value: 'prod' },
              { parentID: 'p', key: '' },
            ],
            serviceEndpoints: [{ name: 'compute', url: 'https://compute.example' }],
          },
        },
      },
    };
    const client = { get: async () => infra } as unknown as KubeClient;
    expect(await gcpSettingsFromInfrastructure(client, silentLogger)).to.deep.equal({
      defaultProject: 'infra-project',
      endpoint: 'https://compute.example',
      actuator: {
        infrastructureLabels: { team: 'x' },
        infrastructureTags: [{ parentID: 'infra-project', key: 'env', value: 'prod' }],
      },
    });
    const missing = { get: async () => Promise.reject(new Error('not found')) } as unknown as KubeClient;
    expect(await gcpSettingsFromInfrastructure(missing, silentLogger)).to.deep.equal({});
  });

  describe('running', () => {
    let cluster: BinaryCluster;
    let emu: GceEmulator;

    before(async () => {
      cluster = await startBinaryCluster({ namespace: NAMESPACE, secrets: defaultSecrets() });
      emu = await startGceEmulator({ clusterId: CLUSTER_ID, bootDelayMs: 50 });
    });
    after(async () => {
      await emu?.stop();
      await cluster?.stop();
    });

    it('creates the instance of a Machine through the emulator, serves /healthz, holds its lease and exits 0 on SIGTERM', async () => {
      const { client } = cluster.env;
      const run = await runProviderBinary(
        'machine-api-provider-gcp',
        cluster,
        ['--gcp-endpoint', emu.endpoint],
        async (healthz) => {
          expect(healthz).to.equal('ok');
          await client.create(
            Machines,
            machineFor({ name: 'bin-1', namespace: NAMESPACE, clusterId: CLUSTER_ID, spec: gcpSpec() }),
          );
          const m = await machineWithProviderID(cluster, 'bin-1');
          expect(m.spec?.providerID).to.equal(`gce://${PROJECT}/${ZONE}/bin-1`);
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
