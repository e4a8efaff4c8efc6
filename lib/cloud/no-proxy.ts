// Which hosts bypass the proxy: the NO_PROXY list as the cluster Proxy writes it (comma-separated host names,
// ".domain" suffixes, IP addresses and CIDR ranges, each optionally with ":port"; "*" = everything), matched
// as Go's net/http does for the reference controllers. CIDRs matter: the cluster Proxy's noProxy lists the
// machine, service and pod networks as CIDRs, which a host-name-only matcher would send to the proxy.
// This list is NO_PROXY alone; that loopback is never proxied is OutboundHttp's rule.
import { BlockList, isIP } from 'node:net';

interface HostRule {
  /** Lower-case name without a leading "." or "*.". */
  name: string;
  /** Also matches the name itself ("example.com"), not only its subdomains (".example.com"). */
  matchesItself: boolean;
  /** 0 = any port. */
  port: number;
}

interface AddressRule {
  nets: BlockList;
  port: number;
}

/** Splits "host:port", "[v6]:port", "v6" and "host" into a host and a port (0 when none). */
function splitHostPort(entry: string): { host: string; port: number } {
  if (entry.startsWith('[')) {
    const close = entry.indexOf(']');
    if (close > 0) {
      const rest = entry.slice(close + 1);
      const port = rest.startsWith(':') ? Number(rest.slice(1)) : 0;
      return { host: entry.slice(1, close), port: Number.isInteger(port) ? port : 0 };
    }
  }
  const colon = entry.lastIndexOf(':');
  // More than one colon without brackets is an IPv6 address (or a CIDR of one), not host:port.
  if (colon > 0 && entry.indexOf(':') === colon) {
    const port = Number(entry.slice(colon + 1));
    if (Number.isInteger(port) && port > 0) return { host: entry.slice(0, colon), port };
  }
  return { host: entry, port: 0 };
}

function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

function family(address: string): 'ipv4' | 'ipv6' | undefined {
  const v = isIP(address);
  return v === 4 ? 'ipv4' : v === 6 ? 'ipv6' : undefined;
}

export class NoProxyList {
  private readonly everything: boolean;
  private readonly hosts: HostRule[] = [];
  private readonly addresses: AddressRule[] = [];

  /** `value` is NO_PROXY's text; undefined or "" bypasses nothing. */
  constructor(value: string | undefined) {
    const entries = (value ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter((e) => e !== '');
    this.everything = entries.includes('*');
    for (const entry of entries) this.add(entry);
  }

  private add(entry: string): void {
    const slash = entry.indexOf('/');
    if (slash > 0) {
      const address = entry.slice(0, slash);
      const prefix = Number(entry.slice(slash + 1));
      const fam = family(address);
      if (fam && Number.isInteger(prefix) && prefix >= 0 && prefix <= (fam === 'ipv4' ? 32 : 128)) {
        const nets = new BlockList();
        nets.addSubnet(address, prefix, fam);
        this.addresses.push({ nets, port: 0 });
      }
      return;
    }
    const { host, port } = splitHostPort(entry);
    const name = normalizeHost(host);
    const fam = family(name);
    if (fam) {
      const nets = new BlockList();
      nets.addAddress(name, fam);
      this.addresses.push({ nets, port });
      return;
    }
    if (name.startsWith('*.')) this.hosts.push({ name: name.slice(2), matchesItself: false, port });
    else if (name.startsWith('.')) this.hosts.push({ name: name.slice(1), matchesItself: false, port });
    else if (name !== '' && name !== '*') this.hosts.push({ name, matchesItself: true, port });
  }

  /** Whether a connection to `host`:`port` must go direct. */
  bypasses(host: string, port: number): boolean {
    if (this.everything) return true;
    const name = normalizeHost(host);
    const fam = family(name);
    if (fam) return this.addresses.some((r) => (r.port === 0 || r.port === port) && r.nets.check(name, fam));
    return this.hosts.some(
      (r) => (r.port === 0 || r.port === port) && (name.endsWith(`.${r.name}`) || (r.matchesItself && name === r.name)),
    );
  }
}
