import type { KubeObject } from '../../lib/apis/meta.js';
import type { ResourceType } from './resource-type.js';

/** The served version an object was written in (its apiVersion), or the preferred one. */
export function versionOf(type: ResourceType, obj: KubeObject): string {
  const api = obj.apiVersion ?? '';
  const v = api.includes('/') ? api.slice(api.indexOf('/') + 1) : api;
  return type.versions.some((x) => x.name === v) ? v : (type.versions[0]?.name ?? 'v1');
}
