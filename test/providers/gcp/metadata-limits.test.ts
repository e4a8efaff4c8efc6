import { expect } from 'chai';
import { InvalidMachineConfigurationError } from '../../../lib/index.js';
import { decodeProviderSpec } from '../../../providers/gcp/index.js';
import { checkUserDataMetadata } from '../../../providers/gcp/metadata-limits.js';
import { NAMESPACE, gcpSpec, machine } from './fixtures.js';

const KB = 1024;
const thrown = (extra: Record<string, unknown>, userData: string, windows = false): unknown => {
  const m = machine('m1', gcpSpec({ userDataSecret: { name: 'worker-user-data' }, ...extra }));
  if (windows) m.metadata.labels = { ...m.metadata.labels, 'machine.openshift.io/os-id': 'Windows' };
  try {
    checkUserDataMetadata(m, decodeProviderSpec(m.spec?.providerSpec?.value).spec, userData);
  } catch (err) {
    return err;
  }
  return undefined;
};

describe("GCE's metadata caps on the user data", () => {
  it('takes user data of up to 256 KB, and fails one byte more naming the Secret, its key and the limit', () => {
    expect(thrown({}, 'x'.repeat(256 * KB))).to.equal(undefined);
    const err = thrown({}, 'x'.repeat(256 * KB + 1));
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    expect(err).to.include({
      field: 'spec.providerSpec.value.userDataSecret',
      message:
        `user data in Secret ${NAMESPACE}/worker-user-data (key "userData") is 262145 bytes, over the limit of ` +
        '262144 bytes for one GCE metadata value',
    });
  });

  it('counts bytes, not characters', () => {
    expect(thrown({}, 'é'.repeat(128 * KB + 1))).to.be.instanceOf(InvalidMachineConfigurationError);
  });

  it('counts Windows user data as sent, without its powershell wrapper', () => {
    const wrapped = `<powershell>${'x'.repeat(256 * KB)}</powershell>\n<persist>true</persist>`;
    expect(thrown({}, wrapped, true)).to.equal(undefined);
  });

  it('fails user data that, with the spec gcpMetadata, makes more than 512 KB of metadata in all', () => {
    const gcpMetadata = [{ key: 'big', value: 'y'.repeat(256 * KB) }];
    expect(thrown({ gcpMetadata }, 'x'.repeat(200 * KB))).to.equal(undefined);
    const err = thrown({ gcpMetadata }, 'x'.repeat(256 * KB));
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    expect((err as Error).message).to.equal(
      `user data in Secret ${NAMESPACE}/worker-user-data (key "userData") is 262144 bytes, which makes 524300 bytes ` +
        'of GCE instance metadata in all (every key and value), over the limit of 524288 bytes',
    );
  });

  it('does not count user data a gcpMetadata item replaces: it is not sent', () => {
    expect(thrown({ gcpMetadata: [{ key: 'user-data', value: 'small' }] }, 'x'.repeat(900 * KB))).to.equal(undefined);
  });
});
