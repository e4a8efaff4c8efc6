// Parses a resource URL the way kube-apiserver's RequestInfoFactory does:
//   /api/v1[/namespaces/{ns}]/{resource}[/{name}[/{subresource}]]
//   /apis/{group}/{version}[/namespaces/{ns}]/{resource}[/{name}[/{subresource}]]
// with namespaces themselves (and their status/finalize subresources) as the special case.

export interface ResourceRequest {
  group: string;
  version: string;
  namespace: string;
  resource: string;
  name?: string;
  subresource?: string;
}

const namespaceSubresources = new Set(['status', 'finalize']);

export function parseResourcePath(pathname: string): ResourceRequest | undefined {
  const parts = pathname
    .split('/')
    .filter((p) => p !== '')
    .map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1] ?? '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1] ?? '';
    version = parts[2] ?? '';
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    if (rest.length === 2 || namespaceSubresources.has(rest[2] ?? '')) {
      return { group, version, namespace: '', resource: 'namespaces', name: rest[1], subresource: rest[2] };
    }
    namespace = rest[1] ?? '';
    rest = rest.slice(2);
  }
  if (rest.length < 1 || rest.length > 3) return undefined;
  return { group, version, namespace, resource: rest[0] ?? '', name: rest[1], subresource: rest[2] };
}
