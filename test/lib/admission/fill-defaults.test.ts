import { expect } from 'chai';
import { fillDefaults } from '../../../lib/admission/fill-defaults.js';

describe('fillDefaults', () => {
  it('takes from the defaulted spec only what the user left unwritten', () => {
    const raw = { instanceType: '', ami: { id: 'ami-1' }, placement: { availabilityZone: 'us-east-1a' } };
    const defaulted = {
      instanceType: 'm5.large',
      ami: { id: 'ami-1' },
      placement: { availabilityZone: 'us-east-1a', region: 'us-east-1' },
      userDataSecret: { name: 'worker-user-data' },
    };
    expect(fillDefaults(raw, defaulted)).to.deep.equal({
      instanceType: 'm5.large',
      ami: { id: 'ami-1' },
      placement: { availabilityZone: 'us-east-1a', region: 'us-east-1' },
      userDataSecret: { name: 'worker-user-data' },
    });
  });

  it('never writes the decoder\'s zero placeholders (false, 0, "", {}, [])', () => {
    const raw = { ami: { id: 'ami-1' } };
    expect(
      fillDefaults(raw, {
        ami: { id: 'ami-1' },
        deviceIndex: 0,
        publicIp: false,
        subnet: {},
        keyName: '',
        securityGroups: [],
      }),
    ).to.deep.equal(raw);
  });

  it('never overwrites what the user wrote, even a value of the wrong type', () => {
    expect(
      fillDefaults({ instanceType: 5, region: 'eu-west-1' }, { instanceType: 'm5.large', region: 'us-east-1' }),
    ).to.deep.equal({ instanceType: 5, region: 'eu-west-1' });
  });

  it("fills inside arrays of the same length (a disk's type) and fills a written 0 the decoder chose a number for (a GPU count)", () => {
    const raw = { disks: [{ boot: true, image: 'img' }], gpus: [{ type: 'nvidia-tesla-t4', count: 0 }] };
    const defaulted = {
      disks: [{ boot: true, image: 'img', type: 'pd-standard', autoDelete: false }],
      gpus: [{ type: 'nvidia-tesla-t4', count: 1 }],
    };
    expect(fillDefaults(raw, defaulted)).to.deep.equal({
      disks: [{ boot: true, image: 'img', type: 'pd-standard' }],
      gpus: [{ type: 'nvidia-tesla-t4', count: 1 }],
    });
  });

  it('replaces an empty list with the defaulted one (GCP network interfaces)', () => {
    expect(fillDefaults({ networkInterfaces: [] }, { networkInterfaces: [{ network: 'c-network' }] })).to.deep.equal({
      networkInterfaces: [{ network: 'c-network' }],
    });
  });

  it('does not modify its input', () => {
    const raw = { a: {} as Record<string, unknown> };
    fillDefaults(raw, { a: { b: 'x' } });
    expect(raw).to.deep.equal({ a: {} });
  });
});
