// Addresses an instance gets: a free private IPv4 from its subnet (AWS reserves the first four and the last
// address), DNS names as EC2 forms them, public/carrier IPv4, IPv6 from the subnet's /64, a MAC.
import type { SeededRandom } from '../kit/index.js';
import type { Subnet } from './model.js';

export function ipv4ToInt(ip: string): number {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255))
    throw new Error(`invalid IPv4 address ${ip}`);
  return (
    (((parts[0] as number) << 24) |
      ((parts[1] as number) << 16) |
      ((parts[2] as number) << 8) |
      (parts[3] as number)) >>>
    0
  );
}

export function intToIpv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export function parseCidr(cidr: string): { first: number; last: number } {
  const [ip = '', bitsStr = ''] = cidr.split('/');
  const bits = Number(bitsStr);
  if (!Number.isInteger(bits) || bits < 0 || bits > 32) throw new Error(`invalid CIDR ${cidr}`);
  const size = 2 ** (32 - bits);
  const first = Math.floor(ipv4ToInt(ip) / size) * size;
  return { first, last: first + size - 1 };
}

export function cidrContains(cidr: string, ip: string): boolean {
  if (!/^\d+\.\d+\.\d+\.\d+$/.test(ip)) return false;
  const { first, last } = parseCidr(cidr);
  const n = ipv4ToInt(ip);
  return n >= first && n <= last;
}

/** Usable addresses of a subnet, after AWS's five reserved ones. */
export function subnetCapacity(subnet: Subnet): number {
  const { first, last } = parseCidr(subnet.cidrBlock);
  return Math.max(0, last - first + 1 - 5);
}

/** The subnet's first and last address an instance may get: after the network address and three reserved ones, before broadcast. */
function allocatableRange(subnet: Subnet): { from: number; to: number } {
  const { first, last } = parseCidr(subnet.cidrBlock);
  return { from: first + 4, to: last - 1 };
}

/** How many addresses allocatePrivateIp could still hand out, `used` taken. */
export function freePrivateIpCount(subnet: Subnet, used: ReadonlySet<string>): number {
  const { from, to } = allocatableRange(subnet);
  let taken = 0;
  for (const ip of used) {
    let n: number;
    try {
      n = ipv4ToInt(ip);
    } catch {
      continue;
    }
    if (n >= from && n <= to) taken++;
  }
  return Math.max(0, to - from + 1 - taken);
}

export function allocatePrivateIp(subnet: Subnet, used: ReadonlySet<string>): string | undefined {
  const { from, to } = allocatableRange(subnet);
  for (let n = from; n <= to; n++) {
    const ip = intToIpv4(n);
    if (!used.has(ip)) return ip;
  }
  return undefined;
}

export function privateDnsName(region: string, ipOrInstanceId: string): string {
  const host = /^\d/.test(ipOrInstanceId) ? `ip-${ipOrInstanceId.replaceAll('.', '-')}` : ipOrInstanceId;
  return region === 'us-east-1' ? `${host}.ec2.internal` : `${host}.${region}.compute.internal`;
}

export function publicDnsName(region: string, ip: string): string {
  const host = `ec2-${ip.replaceAll('.', '-')}`;
  return region === 'us-east-1' ? `${host}.compute-1.amazonaws.com` : `${host}.${region}.compute.amazonaws.com`;
}

export function allocatePublicIp(random: SeededRandom, used: ReadonlySet<string>, firstOctet = 54): string {
  for (;;) {
    const ip = `${firstOctet}.${random.int(0, 255)}.${random.int(0, 255)}.${random.int(1, 254)}`;
    if (!used.has(ip)) return ip;
  }
}

export function allocateIpv6(subnet: Subnet, random: SeededRandom, used: ReadonlySet<string>): string | undefined {
  if (!subnet.ipv6CidrBlock) return undefined;
  const prefix = subnet.ipv6CidrBlock.split('::')[0] ?? '';
  for (;;) {
    const ip = `${prefix}:${random.hex(4)}:${random.hex(4)}:${random.hex(4)}:${random.hex(4)}`.replace(/:0{1,3}/g, ':');
    if (!used.has(ip)) return ip;
  }
}

export function macAddress(random: SeededRandom): string {
  const bytes = ['0a'];
  for (let i = 0; i < 5; i++) bytes.push(random.hex(2));
  return bytes.join(':');
}
