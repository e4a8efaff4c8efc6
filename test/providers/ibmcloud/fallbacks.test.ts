// IBM Cloud capacity fallback entries: a profile, or a zone with its subnet; each merged entry judged whole.
import { expect } from 'chai';
import { validateMachineSetAdmission, type MachineWebhookOptions } from '../../../lib/index.js';
import { ibmCloudMachineAdmission } from '../../../providers/ibmcloud/index.js';
import { ibmCapacityChoice, profileArchitectureOfName } from '../../../providers/ibmcloud/fallbacks.js';
import { decodeProviderSpec } from '../../../providers/ibmcloud/provider-spec.js';
import { infrastructure, machineSetRequest, secretsNamed } from '../admission-requests.js';
import { ibmSpec } from './fixtures.js';

const options: MachineWebhookOptions = {
  infrastructure: infrastructure('IBMCloud', { ibmcloud: { location: 'us-south', resourceGroupName: 'rg' } }),
  plugin: ibmCloudMachineAdmission,
  secrets: secretsNamed('ibmcloud-credentials'),
};
const T = 'spec.template.spec.providerSpec.value';

describe('IBM Cloud capacity fallbacks', () => {
  it('admits profile entries and zone entries with their subnet, keeping the security groups', async () => {
    const spec = ibmSpec({
      fallbacks: [{ profile: 'cx2-4x8' }, { zone: 'us-south-2', primaryNetworkInterface: { subnet: 'subnet-2' } }],
    });
    const res = await validateMachineSetAdmission(machineSetRequest(spec), options);
    expect(res.allowed, res.status?.message).to.equal(true);
    const decoded = decodeProviderSpec(spec);
    expect(decoded.fallbacks[1]!.primaryNetworkInterface.securityGroups).to.have.length(2);
    expect(ibmCapacityChoice(decoded.fallbacks[1]!)).to.deep.equal({
      instanceType: 'bx2-4x16',
      zone: 'us-south-2',
      market: 'on-demand',
    });
  });

  it('denies a zone without its subnet, another field, an IBM Z profile for an x86 primary and a ninth entry', async () => {
    const res = await validateMachineSetAdmission(
      machineSetRequest(ibmSpec({ fallbacks: [{ zone: 'us-south-2' }, { image: 'other' }, { profile: 'bz2-4x16' }] })),
      options,
    );
    const message = res.status?.message ?? '';
    expect(message).to.contain(`${T}.fallbacks[0].primaryNetworkInterface.subnet: Required value`);
    expect(message).to.contain(`${T}.fallbacks[1].image: Forbidden`);
    expect(message).to.contain(`${T}.fallbacks[2].profile`).and.contain('s390x');
    const nine = await validateMachineSetAdmission(
      machineSetRequest(ibmSpec({ fallbacks: Array.from({ length: 9 }, () => ({ profile: 'cx2-4x8' })) })),
      options,
    );
    expect(nine.status?.message).to.contain(`${T}.fallbacks: Too many: 9: must have at most 8 items`);
  });

  it('tells the processor of a profile by its name', () => {
    expect(profileArchitectureOfName('bx2-4x16')).to.equal('amd64');
    expect(profileArchitectureOfName('gx3-16x80x1l4')).to.equal('amd64');
    expect(profileArchitectureOfName('mz2-2x16')).to.equal('s390x');
  });
});
