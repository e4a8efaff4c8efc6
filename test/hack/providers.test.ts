// The bench/chaos provider table: each cloud's flags point its binary at its own emulator, its MachineSets
// carry its own providerSpec and Secrets, and the targets read its own metric keys.
import { expect } from 'chai';
import { benchProvider, benchProviders, PROVIDER_NAMES } from '../../hack/bench/providers.js';
import { deploymentNodeFlags } from '../../hack/bench/controller-process.js';
import { QUICK } from '../../hack/bench/plans.js';
import { evaluateTargets } from '../../hack/bench/report.js';
import { machineSet } from '../../hack/bench/workload.js';

const cloud = {
  endpoint: 'http://127.0.0.1:1/v1',
  extraEndpoints: {
    iam: 'http://127.0.0.1:2',
    resourceManager: 'http://127.0.0.1:3',
    globalTagging: 'http://127.0.0.1:4',
  },
};

describe('bench providers', () => {
  it('reject an unknown provider name, naming the flag and the choices', () => {
    expect(() => benchProvider('azure')).to.throw(/--provider must be one of aws, gcp, ibmcloud/);
  });

  it('point each binary at its emulator with its own flags', () => {
    const args = (n: (typeof PROVIDER_NAMES)[number]) => benchProviders[n].cloudArgs(cloud as never);
    expect(args('aws')).to.deep.equal(['--aws-endpoint=http://127.0.0.1:1/v1']);
    expect(args('gcp')).to.deep.equal(['--gcp-endpoint=http://127.0.0.1:1/v1']);
    expect(args('ibmcloud')).to.deep.equal([
      '--ibmcloud-vpc-endpoint=http://127.0.0.1:1/v1',
      '--ibmcloud-iam-endpoint=http://127.0.0.1:2',
      '--ibmcloud-resource-manager-endpoint=http://127.0.0.1:3',
      '--ibmcloud-global-tagging-endpoint=http://127.0.0.1:4',
    ]);
  });

  it('build MachineSets whose providerSpec names a Secret the provider creates', () => {
    for (const name of PROVIDER_NAMES) {
      const p = benchProviders[name];
      const spec = machineSet('s', 2, p).spec?.template?.spec?.providerSpec?.value as {
        credentialsSecret: { name: string };
        userDataSecret: { name: string };
      };
      const secrets = p.secrets('ns').map((s) => s.metadata.name);
      expect(secrets, name).to.include.members([spec.credentialsSecret.name, spec.userDataSecret.name]);
    }
  });

  it('evaluate the cloud-call targets from the provider-prefixed metric keys', () => {
    const scenarios = [
      { name: 'scale-up-50', provider: 'gcp', metrics: { gceCallsPerMachine: 2.5, ec2CallsPerMachine: 99 } },
    ];
    const t = evaluateTargets(scenarios, { largest: 50, limits: QUICK.limits, cloud: benchProviders.gcp }).find((x) =>
      x.name.startsWith('GCE calls per created machine'),
    );
    expect(t).to.include({ value: 2.5, met: true });
  });

  it('run each binary with the node flags its Deployment gives it', () => {
    for (const name of PROVIDER_NAMES) {
      const p = benchProvider(name);
      expect(deploymentNodeFlags(name, p.binary.script)).to.deep.equal(['--max-old-space-size=192']);
      expect(deploymentNodeFlags(name, 'cmd/machineset-controller.ts')).to.deep.equal(['--max-old-space-size=192']);
    }
    expect(() => deploymentNodeFlags('aws', 'cmd/no-such-binary.ts')).to.throw(
      /no container runs cmd\/no-such-binary.ts/,
    );
  });
});
