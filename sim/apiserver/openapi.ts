// A minimal OpenAPI v3 surface. kubectl (apply, create, edit) asks /openapi/v3 whether each kind's
// PATCH operation takes the fieldValidation parameter; when it does, kubectl leaves validation to the
// server (fieldValidation=Strict) instead of downloading schemas. So each group-version document lists,
// per resource, the operations with their x-kubernetes-group-version-kind and parameters, and the
// CRD's schema as a component.
import { createHash } from 'node:crypto';
import type { TypeRegistry } from './registry.js';
import type { ResourceType } from './resource-type.js';

const queryParams = ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'pretty'].map((name) => ({
  name,
  in: 'query',
  schema: { type: name === 'force' ? 'boolean' : 'string' },
  uniqueItems: true,
}));

function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

function servedGroupVersions(registry: TypeRegistry): Array<{ group: string; version: string }> {
  const seen = new Map<string, { group: string; version: string }>();
  for (const t of registry.all())
    for (const v of t.versions) seen.set(gvPath(t.group, v.name), { group: t.group, version: v.name });
  return [...seen.values()];
}

function schemaName(t: ResourceType, version: string): string {
  const reversed = t.group === '' ? 'io.k8s.api.core' : t.group.split('.').reverse().join('.');
  return `${reversed}.${version}.${t.kind}`;
}

export function groupVersionDoc(
  registry: TypeRegistry,
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const types = registry.all().filter((t) => t.group === group && t.versions.some((v) => v.name === version));
  if (types.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const t of types) {
    const gvk = { group, version, kind: t.kind };
    const ref = { $ref: `#/components/schemas/${schemaName(t, version)}` };
    const op = (action: string, id: string) => ({
      operationId: `${action}${t.kind}`,
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
      parameters: queryParams,
      responses: { '200': { description: 'OK', content: { 'application/json': { schema: ref } } } },
      description: `${id} ${t.kind}`,
    });
    const base = `/${gvPath(group, version)}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.plural}`;
    paths[base] = { get: op('list', 'list'), post: op('post', 'create') };
    paths[`${base}/{name}`] = {
      get: op('get', 'read'),
      put: op('put', 'replace'),
      patch: op('patch', 'patch'),
      delete: op('delete', 'delete'),
    };
    const v = t.versions.find((x) => x.name === version);
    schemas[schemaName(t, version)] = {
      ...(v?.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
      'x-kubernetes-group-version-kind': [gvk],
    };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, paths, components: { schemas } };
}

export function rootDoc(registry: TypeRegistry): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const { group, version } of servedGroupVersions(registry)) {
    const doc = groupVersionDoc(registry, group, version);
    const hash = createHash('sha256').update(JSON.stringify(doc)).digest('hex').slice(0, 32).toUpperCase();
    paths[gvPath(group, version)] = { serverRelativeURL: `/openapi/v3/${gvPath(group, version)}?hash=${hash}` };
  }
  return { paths };
}
