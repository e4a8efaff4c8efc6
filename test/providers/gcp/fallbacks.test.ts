// GCP capacity fallback entries: what an entry may set, how its market merges over the primary's, and how the
// webhooks judge each merged entry whole.
import { expect } from 'chai';
import { validateMachineSetAdmission, type MachineWebhookOptions } from '../../../lib/index.js';
import { gcpMachineAdmission } from '../../../providers/gcp/index.js';
import { gcpCapacityChoice } from '../../../providers/gcp/fallbacks.js';
import { decodeProviderSpec } from '../../../providers/gcp/provider-spec.js';
import { infrastructure, machineSetRequest, secretsNamed } from '../admission-requests.js';
import { gcpSpec } from './fixtures.js';

const options: MachineWebhookOptions = {
  infrastructure: infrastructure('GCP', { gcp: { projectID: 'p', region: 'us-central1' } }, 'amd64'),
  plugin: gcpMachineAdmission,
  secrets: secretsNamed('gcp-cloud-credentials'),
};
const T = 'spec.template.spec.providerSpec.value';

describe('GCP capacity fallbacks', () => {
  it('admits machine type, zone, market and GPU entries', async () => {
    const spec = gcpSpec({
      fallbacks: [
        { machineType: 'n2d-standard-4' },
        { zone: 'us-central1-b' },
        { provisioningModel: 'Spot' },
        { machineType: 'n1-standard-4', gpus: [{ type: 'nvidia-tesla-t4', count: 1 }] },
      ],
    });
    const res = await validateMachineSetAdmission(machineSetRequest(spec), options);
    expect(res.allowed, res.status?.message).to.equal(true);
  });

  it('denies a bad entry, a field outside the capacity fields and an Arm type, naming each path', async () => {
    const res = await validateMachineSetAdmission(
      machineSetRequest(
        gcpSpec({
          fallbacks: [{ provisioningModel: 'Reserved' }, { disks: [] }, { machineType: 't2a-standard-4' }],
        }),
      ),
      options,
    );
    const message = res.status?.message ?? '';
    expect(message).to.contain(`${T}.fallbacks[0].provisioningModel: Unsupported value: "Reserved"`);
    expect(message).to.contain(`${T}.fallbacks[1].disks: Forbidden`);
    expect(message).to.contain(`${T}.fallbacks[2].machineType`).and.contain('arm64');
  });

  it('moves a Spot primary to standard with preemptible: false, and a standard one to Spot', () => {
    const spot = decodeProviderSpec(gcpSpec({ provisioningModel: 'Spot', fallbacks: [{ preemptible: false }] }));
    expect(gcpCapacityChoice(spot.spec).market).to.equal('spot');
    expect(gcpCapacityChoice(spot.fallbacks[0]!)).to.deep.equal({
      instanceType: 'n2-standard-4',
      zone: spot.spec.zone,
      market: 'on-demand',
    });
    const preemptible = decodeProviderSpec(gcpSpec({ preemptible: true, fallbacks: [{ provisioningModel: 'Spot' }] }));
    expect(preemptible.fallbacks[0]!.preemptible).to.equal(undefined);
    expect(gcpCapacityChoice(preemptible.fallbacks[0]!).market).to.equal('spot');
  });
});
