// AWS capacity fallback entries: what an entry may set, how it merges over the primary, and how the webhooks
// and the actuator's decode judge each merged entry whole.
import { expect } from 'chai';
import { mutateMachineAdmission, validateMachineSetAdmission, type MachineWebhookOptions } from '../../../lib/index.js';
import { awsMachineAdmission } from '../../../providers/aws/index.js';
import { awsCapacityChoice, ec2ArchitectureOfName } from '../../../providers/aws/fallbacks.js';
import { decodeProviderConfig } from '../../../providers/aws/provider-spec.js';
import { infrastructure, machineRequest, machineSetRequest, patchOf, secretsNamed } from '../admission-requests.js';
import { awsSpec } from './fixtures.js';

const options: MachineWebhookOptions = {
  infrastructure: infrastructure('AWS', { aws: { region: 'us-east-1' } }, 'amd64'),
  plugin: awsMachineAdmission,
  secrets: secretsNamed('aws-cloud-credentials'),
};
const subnetB = { filters: [{ name: 'tag:Name', values: ['subnet-b'] }] };
const T = 'spec.template.spec.providerSpec.value';

describe('AWS capacity fallbacks', () => {
  it('admits instance type, zone with subnet and market entries, and keeps the list through defaulting', async () => {
    const spec = awsSpec({
      fallbacks: [
        { instanceType: 'm6a.xlarge' },
        { placement: { availabilityZone: 'us-east-1b' }, subnet: subnetB },
        { spotMarketOptions: {} },
      ],
    });
    const res = await validateMachineSetAdmission(machineSetRequest(spec), options);
    expect(res.allowed, res.status?.message).to.equal(true);
    const patch = patchOf(mutateMachineAdmission(machineRequest(spec), options)) as Array<{ path: string }>;
    expect(patch.filter((op) => op.path.includes('fallbacks'))).to.deep.equal([]);
  });

  it('denies a bad entry naming its path in the MachineSet template', async () => {
    const res = await validateMachineSetAdmission(
      machineSetRequest(awsSpec({ fallbacks: [{ instanceType: 'm6a.xlarge' }, { instanceType: 'M6A' }] })),
      options,
    );
    expect(res.allowed).to.equal(false);
    expect(res.status?.message).to.contain(`${T}.fallbacks[1].instanceType: Invalid value: "M6A"`);
  });

  it('denies a field outside the capacity fields, a zone without its subnet, and an Arm type for an x86 primary', async () => {
    const res = await validateMachineSetAdmission(
      machineSetRequest(
        awsSpec({
          fallbacks: [
            { ami: { id: 'ami-2' } },
            { placement: { availabilityZone: 'us-east-1b' } },
            { instanceType: 'm7g.xlarge' },
          ],
        }),
      ),
      options,
    );
    const message = res.status?.message ?? '';
    expect(message).to.contain(`${T}.fallbacks[0].ami: Forbidden`);
    expect(message).to.contain(`${T}.fallbacks[1].subnet: Required value`);
    expect(message).to.contain(`${T}.fallbacks[2].instanceType: Invalid value: "m7g.xlarge"`).and.contain('arm64');
  });

  it('moves a spot primary to on-demand with marketType OnDemand, and an on-demand one to spot', () => {
    const spot = decodeProviderConfig(
      awsSpec({ spotMarketOptions: { maxPrice: '0.5' }, fallbacks: [{ marketType: 'OnDemand' }] }),
    );
    expect(awsCapacityChoice(spot.config).market).to.equal('spot');
    expect(spot.fallbacks[0]!.spotMarketOptions).to.equal(undefined);
    expect(awsCapacityChoice(spot.fallbacks[0]!)).to.deep.equal({
      instanceType: 'm6i.xlarge',
      zone: 'us-east-1a',
      market: 'on-demand',
    });
    const onDemand = decodeProviderConfig(awsSpec({ fallbacks: [{ spotMarketOptions: {} }] }));
    expect(awsCapacityChoice(onDemand.fallbacks[0]!).market).to.equal('spot');
  });

  it('tells Graviton instance types by their name', () => {
    for (const t of ['m6g.large', 'c7gn.xlarge', 't4g.micro', 'x2gd.large', 'im4gn.large', 'a1.large'])
      expect(ec2ArchitectureOfName(t), t).to.equal('arm64');
    for (const t of ['m5.large', 'm6i.xlarge', 'g5.xlarge', 'p5.48xlarge', 'm7i-flex.large'])
      expect(ec2ArchitectureOfName(t), t).to.equal('amd64');
  });
});
