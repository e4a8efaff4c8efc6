import { expect } from 'chai';
import { allocatePrivateIp, freePrivateIpCount, subnetCapacity } from '../../../sim/aws/addressing.js';
import type { Subnet } from '../../../sim/aws/model.js';

const subnet = (cidrBlock: string): Subnet => ({ cidrBlock }) as Subnet;

describe('EC2 emulator private addresses', () => {
  it('counts as free exactly the addresses allocatePrivateIp would still hand out one after another', () => {
    const s = subnet('10.0.1.0/28');
    const used = new Set(['10.0.1.4', '10.0.1.9', '10.0.2.7', 'not-an-ip']);
    const counted = freePrivateIpCount(s, used);
    const probe = new Set(used);
    let handedOut = 0;
    for (let ip = allocatePrivateIp(s, probe); ip; ip = allocatePrivateIp(s, probe)) {
      probe.add(ip);
      handedOut++;
    }
    expect(counted).to.equal(handedOut);
    expect(counted).to.equal(subnetCapacity(s) - 2);
    expect(freePrivateIpCount(s, new Set())).to.equal(subnetCapacity(s));
  });

  it('hands out the lowest free address after the four AWS reserves', () => {
    expect(allocatePrivateIp(subnet('10.0.1.0/28'), new Set(['10.0.1.4', '10.0.1.6']))).to.equal('10.0.1.5');
  });
});
