// NetworkPolicy (networking.k8s.io/v1) as a network plugin applies it, for the manifest tests: whether a
// connection between two pods on a port is allowed, given every policy of the destination's (ingress) or the
// source's (egress) namespace. A pod no policy selects for a direction is not isolated in it; an isolated pod
// admits what at least one rule of a selecting policy admits. Peers by pod and namespace selectors (ipBlock peers
// are taken as "anywhere"); ports by number, range (endPort) or the container port's name.

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }>;
}
interface PolicyPort {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}
interface Peer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string };
}
export interface NetworkPolicy {
  metadata: { name: string; namespace: string };
  spec: {
    podSelector: LabelSelector;
    policyTypes?: Array<'Ingress' | 'Egress'>;
    ingress?: Array<{ from?: Peer[]; ports?: PolicyPort[] }>;
    egress?: Array<{ to?: Peer[]; ports?: PolicyPort[] }>;
  };
}

/** A pod as a policy sees it: its labels, its namespace's name and labels, its named container ports. */
export interface Endpoint {
  namespace: string;
  namespaceLabels: Record<string, string>;
  labels: Record<string, string>;
  namedPorts?: Record<string, number>;
}

export function selects(sel: LabelSelector, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const inValues = has && (e.values ?? []).includes(labels[e.key]!);
    const ok =
      e.operator === 'In' ? inValues : e.operator === 'NotIn' ? !inValues : e.operator === 'Exists' ? has : !has;
    if (!ok) return false;
  }
  return true;
}

function peerMatches(peer: Peer, policyNamespace: string, other: Endpoint): boolean {
  if (peer.ipBlock) return true;
  const nsOk = peer.namespaceSelector
    ? selects(peer.namespaceSelector, other.namespaceLabels)
    : other.namespace === policyNamespace;
  const podOk = peer.podSelector ? selects(peer.podSelector, other.labels) : true;
  return nsOk && podOk;
}

function portMatches(ports: PolicyPort[] | undefined, port: number, protocol: string, target: Endpoint): boolean {
  if (ports === undefined || ports.length === 0) return true;
  return ports.some((p) => {
    if ((p.protocol ?? 'TCP') !== protocol) return false;
    if (p.port === undefined) return true;
    const start = typeof p.port === 'string' ? target.namedPorts?.[p.port] : p.port;
    if (start === undefined) return false;
    return port >= start && port <= (p.endPort ?? start);
  });
}

function isolating(policies: NetworkPolicy[], pod: Endpoint, type: 'Ingress' | 'Egress'): NetworkPolicy[] {
  return policies.filter(
    (p) =>
      p.metadata.namespace === pod.namespace &&
      selects(p.spec.podSelector, pod.labels) &&
      (p.spec.policyTypes ?? (type === 'Ingress' ? ['Ingress'] : p.spec.egress ? ['Egress'] : [])).includes(type),
  );
}

/** Whether `pod`'s policies for `type` let the connection with `other` through on port/protocol of `target`. */
function admits(
  policies: NetworkPolicy[],
  type: 'Ingress' | 'Egress',
  pod: Endpoint,
  other: Endpoint,
  target: Endpoint,
  port: number,
  protocol: string,
): boolean {
  const selecting = isolating(policies, pod, type);
  if (selecting.length === 0) return true;
  return selecting.some((p) => {
    const rules =
      type === 'Ingress'
        ? (p.spec.ingress ?? []).map((r) => ({ peers: r.from, ports: r.ports }))
        : (p.spec.egress ?? []).map((r) => ({ peers: r.to, ports: r.ports }));
    return rules.some(
      (r) =>
        portMatches(r.ports, port, protocol, target) &&
        (r.peers === undefined ||
          r.peers.length === 0 ||
          r.peers.some((peer) => peerMatches(peer, p.metadata.namespace, other))),
    );
  });
}

/** Whether `from` may open a connection to `to` on port/protocol under `policies` (both directions checked). */
export function allowed(
  policies: NetworkPolicy[],
  from: Endpoint,
  to: Endpoint,
  port: number,
  protocol: 'TCP' | 'UDP' = 'TCP',
): boolean {
  return (
    admits(policies, 'Ingress', to, from, to, port, protocol) &&
    admits(policies, 'Egress', from, to, to, port, protocol)
  );
}
