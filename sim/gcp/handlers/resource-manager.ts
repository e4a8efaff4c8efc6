// The one Cloud Resource Manager v3 call the GCP provider makes: tagValues.getNamespaced, which resolves
// "<parentId>/<key>/<value>" to the TagValue ids an instance's resourceManagerTags carry. CRM answers a value
// that does not exist, or that the caller may not see, with 403 PERMISSION_DENIED.
import { GceApiError, invalidField } from '../api-error.js';
import type { GceState } from '../gce-state.js';
import type { GceTagValue } from '../model.js';
import type { Handler } from './context.js';

export const getNamespacedTagValue: Handler = (ctx) => {
  const name = ctx.query.get('name');
  if (!name) throw invalidField('name', '', 'The namespaced name of the tag value is required.');
  if (name.split('/').length !== 3)
    throw invalidField('name', name, 'Expected {parentId}/{tagKeyShortName}/{tagValueShortName}.');
  const tv = ctx.state.world.tagValues.find((t) => t.namespacedName === name);
  if (!tv) {
    throw new GceApiError(
      403,
      'forbidden',
      "Permission denied on resource 'tagValues/namespaced' (or it may not exist).",
    );
  }
  return { ...tv, etag: `W/"${tv.name}"` };
};

/** Registers a tag value (and its key) so getNamespaced finds it; returns the existing one when known. */
export function addTagValue(state: GceState, parentId: string, key: string, value: string): GceTagValue {
  const namespacedName = `${parentId}/${key}/${value}`;
  const existing = state.world.tagValues.find((t) => t.namespacedName === namespacedName);
  if (existing) return existing;
  const sameKey = state.world.tagValues.find((t) => t.namespacedName.startsWith(`${parentId}/${key}/`));
  const tv: GceTagValue = {
    name: `tagValues/${state.newId().slice(0, 15)}`,
    parent: sameKey?.parent ?? `tagKeys/${state.newId().slice(0, 15)}`,
    namespacedName,
    shortName: value,
    createTime: new Date(state.clock.now()).toISOString(),
  };
  state.world.tagValues.push(tv);
  state.changed();
  return tv;
}
