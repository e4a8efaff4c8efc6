// The IBM Cloud admission plug-in (the reference has no IBM webhook): defaults for what the cluster knows
// (region and resource group from the Infrastructure, the installer's Secrets), validation by the actuator's
// own rules with paths from the object root.
import { expect } from 'chai';
import {
  mutateMachineAdmission,
  validateMachineAdmission,
  validateMachineSetAdmission,
  type MachineWebhookOptions,
} from '../../../lib/index.js';
import { ibmCloudMachineAdmission } from '../../../providers/ibmcloud/index.js';
import { infrastructure, machineRequest, machineSetRequest, patchOf, secretsNamed } from '../admission-requests.js';
import { ibmSpec } from './fixtures.js';

const options: MachineWebhookOptions = {
  infrastructure: infrastructure('IBMCloud', { ibmcloud: { location: 'eu-de', resourceGroupName: 'demo-x7k2p-rg' } }),
  plugin: ibmCloudMachineAdmission,
  secrets: secretsNamed('ibmcloud-credentials'),
};

const P = '/spec/providerSpec/value';

describe('IBM Cloud admission', () => {
  it('defaults the region and resource group from the Infrastructure and the user-data and credentials Secrets', () => {
    const spec = ibmSpec();
    for (const k of ['region', 'resourceGroup', 'userDataSecret', 'credentialsSecret']) delete spec[k];
    const res = mutateMachineAdmission(machineRequest(spec), options);
    expect(patchOf(res)).to.have.deep.members([
      { op: 'add', path: `${P}/region`, value: 'eu-de' },
      { op: 'add', path: `${P}/resourceGroup`, value: 'demo-x7k2p-rg' },
      { op: 'add', path: `${P}/userDataSecret`, value: { name: 'worker-user-data' } },
      { op: 'add', path: `${P}/credentialsSecret`, value: { name: 'ibmcloud-credentials' } },
    ]);
  });

  it('changes nothing in a complete spec', () => {
    expect(mutateMachineAdmission(machineRequest(ibmSpec()), options)).to.deep.equal({ uid: 'uid-m', allowed: true });
  });

  it('denies what the actuator would refuse, naming the field from the MachineSet root', async () => {
    const res = await validateMachineSetAdmission(machineSetRequest(ibmSpec({ vpc: '', zone: 'eu-de-1' })), options);
    expect(res.status?.message).to.equal(
      '[spec.template.spec.providerSpec.value.vpc: Required value: the name of the VPC the instance joins, ' +
        'spec.template.spec.providerSpec.value.zone: Invalid value: "eu-de-1": must be a zone of region us-south, e.g. us-south-1]',
    );
  });

  it('validates without defaults: a spec the mutating webhook did not see is judged as the actuator reads it', async () => {
    const spec = ibmSpec();
    delete spec.credentialsSecret;
    const res = await validateMachineAdmission(machineRequest(spec), options);
    expect(res.status?.message).to.equal(
      'spec.providerSpec.value.credentialsSecret.name: Required value: the Secret holding the IAM API key (key ibmcloud_api_key)',
    );
  });

  it('warns about unknown fields and a credentials Secret that does not exist', async () => {
    const res = await validateMachineAdmission(
      machineRequest(ibmSpec({ credentialsSecret: { name: 'other' }, extra: 1 })),
      options,
    );
    expect(res.allowed).to.equal(true);
    expect(res.warnings).to.have.members([
      'Unknown field (spec.providerSpec.value.extra) will be ignored',
      'spec.providerSpec.value.credentialsSecret: Invalid value: "other": not found. Expected CredentialsSecret to exist',
    ]);
  });
});
