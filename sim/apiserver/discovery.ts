// Discovery documents (/api, /apis, /apis/<group>[/<version>], /version) built from the live registry,
// so a CRD created or deleted shows up in `kubectl api-resources` at once.
import type { TypeRegistry } from './registry.js';
import { apiVersionFor, type ResourceType } from './resource-type.js';
import { versionPriority } from './crd.js';

const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const builtinGroupOrder = ['', 'apps', 'events.k8s.io', 'policy', 'coordination.k8s.io', 'apiextensions.k8s.io'];

export function versionInfoDoc(): Record<string, unknown> {
  return {
    major: '1',
    minor: '32',
    gitVersion: 'v1.32.0-machine-api-envtest',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.23',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

export function coreVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

interface GroupDoc {
  name: string;
  versions: Array<{ groupVersion: string; version: string }>;
  preferredVersion: { groupVersion: string; version: string };
}

function groupDocs(registry: TypeRegistry): GroupDoc[] {
  const versionsByGroup = new Map<string, Set<string>>();
  for (const t of registry.all()) {
    if (t.group === '') continue;
    let s = versionsByGroup.get(t.group);
    if (!s) versionsByGroup.set(t.group, (s = new Set()));
    for (const v of t.versions) s.add(v.name);
  }
  const order = (g: string) => {
    const i = builtinGroupOrder.indexOf(g);
    return i < 0 ? builtinGroupOrder.length : i;
  };
  return [...versionsByGroup.keys()]
    .sort((a, b) => order(a) - order(b) || a.localeCompare(b))
    .map((name) => {
      const versions = [...(versionsByGroup.get(name) ?? [])].sort((a, b) => versionPriority(b) - versionPriority(a));
      const docs = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
      return { name, versions: docs, preferredVersion: docs[0] ?? { groupVersion: name, version: '' } };
    });
}

export function groupList(registry: TypeRegistry): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groupDocs(registry) };
}

export function groupDoc(registry: TypeRegistry, group: string): Record<string, unknown> | undefined {
  const g = groupDocs(registry).find((d) => d.name === group);
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...g } : undefined;
}

function resourceEntries(t: ResourceType, version: string): Array<Record<string, unknown>> {
  const v = t.versions.find((x) => x.name === version);
  const out: Array<Record<string, unknown>> = [
    {
      name: t.plural,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: t.review ? ['create'] : verbs,
      ...(t.shortNames.length > 0 ? { shortNames: t.shortNames } : {}),
      ...(t.categories.length > 0 ? { categories: t.categories } : {}),
    },
  ];
  if (v?.statusSubresource)
    out.push({
      name: `${t.plural}/status`,
      singularName: '',
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: ['get', 'patch', 'update'],
    });
  if (v?.scale)
    out.push({
      name: `${t.plural}/scale`,
      singularName: '',
      namespaced: t.namespaced,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
  if (t.extraSubresources.includes('eviction'))
    out.push({
      name: `${t.plural}/eviction`,
      singularName: '',
      namespaced: t.namespaced,
      group: 'policy',
      version: 'v1',
      kind: 'Eviction',
      verbs: ['create'],
    });
  if (t.group === '' && t.plural === 'namespaces')
    out.push({
      name: 'namespaces/finalize',
      singularName: '',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['update'],
    });
  return out;
}

export function resourceList(
  registry: TypeRegistry,
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const types = registry.all().filter((t) => t.group === group && t.versions.some((v) => v.name === version));
  if (types.length === 0) return undefined;
  types.sort((a, b) => a.plural.localeCompare(b.plural));
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionFor(group, version),
    resources: types.flatMap((t) => resourceEntries(t, version)),
  };
}
