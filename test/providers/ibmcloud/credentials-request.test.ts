// manifests/providers/ibmcloud/credentials-request.yaml against what the provider really calls: a full Machine
// lifecycle plus a scale-from-zero look-up against the emulator, every action it made mapped to the IAM
// service and role that allows it.
import { expect } from 'chai';
import { RealClock, type MachineSet } from '../../../lib/index.js';
import { conformanceContext } from '../../../sim/kit/index.js';
import { readManifest, readManifestDir, repo } from '../../manifests/manifest-files.js';
import { IAM_TOKEN_ACTION, startIbmVpcEmulator } from '../../../sim/ibmcloud/index.js';
import {
  createIbmCloudActuator,
  createIbmCloudInstanceTypeCatalog,
  IbmClientFactory,
} from '../../../providers/ibmcloud/index.js';
import { CLUSTER_ID, ibmSpec, machine, NAMESPACE, secretsClient } from './fixtures.js';
import { join } from 'node:path';

const VIEWER = 'crn:v1:bluemix:public:iam::::role:Viewer';
const EDITOR = 'crn:v1:bluemix:public:iam::::role:Editor';
const OPERATOR = 'crn:v1:bluemix:public:iam::::role:Operator';
const IS = 'serviceName=is';
const RG = 'resourceType=resource-group';

/** What each emulated call needs: the policy (by its attribute) and the roles on it. */
const NEEDS: Record<string, { policy: string; roles: string[] }> = {
  GetRegion: { policy: IS, roles: [VIEWER] },
  ListInstances: { policy: IS, roles: [VIEWER] },
  GetInstance: { policy: IS, roles: [VIEWER] },
  ListInstanceProfiles: { policy: IS, roles: [VIEWER] },
  GetInstanceProfile: { policy: IS, roles: [VIEWER] },
  ListVpcs: { policy: IS, roles: [VIEWER] },
  ListImages: { policy: IS, roles: [VIEWER] },
  ListSubnets: { policy: IS, roles: [VIEWER] },
  ListSecurityGroups: { policy: IS, roles: [VIEWER] },
  ListDedicatedHosts: { policy: IS, roles: [VIEWER] },
  CreateInstance: { policy: IS, roles: [EDITOR, OPERATOR] },
  DeleteInstance: { policy: IS, roles: [EDITOR, OPERATOR] },
  AttachTag: { policy: IS, roles: [EDITOR] },
  ListResourceGroups: { policy: RG, roles: [VIEWER] },
};

interface Policy {
  attributes: Array<{ name: string; value: string }>;
  roles: string[];
}

describe('manifests/providers/ibmcloud/credentials-request.yaml', function () {
  this.timeout(20_000);
  const [cr] = readManifest(join(repo, 'manifests', 'providers', 'ibmcloud', 'credentials-request.yaml'));
  const spec = cr?.spec as {
    secretRef: { name: string; namespace: string };
    providerSpec: { apiVersion: string; kind: string; policies: Policy[] };
  };
  const rolesOn = (policy: string): string[] =>
    spec.providerSpec.policies
      .filter((p) => p.attributes.some((a) => `${a.name}=${a.value}` === policy))
      .flatMap((p) => p.roles);

  it('is an IBMCloudProviderSpec CredentialsRequest for the Secret the samples name', () => {
    expect(cr).to.include({ apiVersion: 'cloudcredential.openshift.io/v1', kind: 'CredentialsRequest' });
    expect(spec.providerSpec).to.include({
      apiVersion: 'cloudcredential.openshift.io/v1',
      kind: 'IBMCloudProviderSpec',
    });
    const set = readManifestDir('samples/ibmcloud').find((d) => d.kind === 'MachineSet') as unknown as MachineSet;
    const value = set.spec?.template?.spec?.providerSpec?.value as { credentialsSecret: { name: string } };
    expect(spec.secretRef).to.deep.equal({ name: value.credentialsSecret.name, namespace: set.metadata.namespace });
  });

  it('grants every call a machine lifecycle and a scale-from-zero look-up make', async () => {
    const emu = await startIbmVpcEmulator({
      clusterId: CLUSTER_ID,
      timings: { provisionMs: 5, bootMs: 10, deleteMs: 10 },
    });
    try {
      const endpoints = {
        vpc: emu.endpoint,
        iam: emu.iamEndpoint,
        resourceManager: emu.resourceManagerEndpoint,
        globalTagging: emu.globalTaggingEndpoint,
      };
      const clients = new IbmClientFactory({ clock: new RealClock(), endpoints });
      const client = secretsClient();
      const actuator = createIbmCloudActuator({ client, clock: new RealClock(), clientFactory: clients });
      const m = machine(
        'cr-1',
        ibmSpec({ tags: [{ name: 'env', value: 'x' }], dedicatedHost: `${CLUSTER_ID}-dh-us-south-1` }),
      );
      await actuator.create(m, conformanceContext());
      await actuator.exists(m, conformanceContext());
      await actuator.update(m, conformanceContext());
      await actuator.delete(m, conformanceContext());
      const set = {
        metadata: { name: 's', namespace: NAMESPACE },
        spec: { template: { spec: { providerSpec: { value: ibmSpec() } } } },
      } as MachineSet;
      await createIbmCloudInstanceTypeCatalog({ client, clock: new RealClock(), clients }).lookup(
        set,
        conformanceContext(),
      );
      const called = Object.keys(emu.knobs.allCounts()).filter((a) => a !== IAM_TOKEN_ACTION);
      expect(called).to.include.members(['CreateInstance', 'DeleteInstance', 'AttachTag', 'ListResourceGroups']);
      for (const action of called) {
        const need = NEEDS[action];
        expect(need, `${action} is not mapped to an IAM role in this test`).to.not.equal(undefined);
        for (const role of need!.roles)
          expect(rolesOn(need!.policy), `${action} needs ${role} on ${need!.policy}`).to.include(role);
      }
    } finally {
      await emu.stop();
    }
  });
});
