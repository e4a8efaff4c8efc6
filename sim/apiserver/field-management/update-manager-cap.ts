// kube-apiserver keeps at most 10 Update managers per object, so an object written by ever-new clients
// (a manager name per pod, per job) does not grow its managedFields without bound. Past the cap the
// oldest Update entries are folded, per apiVersion, into one entry named "ancient-changes" that owns
// their fields and carries the time of the newest entry folded in.
import { decodeManagers, encodeManagers, identityOf, type ManagerEntry } from './managed-fields.js';

export const MaxUpdateManagers = 10;
export const AncientChangesManager = 'ancient-changes';

/** Oldest first: entries without a time, then by time (RFC 3339 in UTC sorts as text), then by identity. */
function byAge(a: ManagerEntry & { id: string }, b: ManagerEntry & { id: string }): number {
  if (a.time !== b.time) {
    if (a.time === undefined) return -1;
    if (b.time === undefined) return 1;
    return a.time < b.time ? -1 : 1;
  }
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** `entries` (encoded managedFields) with the Update managers past the cap folded into "ancient-changes". */
export function capUpdateManagers(
  entries: Array<Record<string, unknown>>,
  max = MaxUpdateManagers,
): Array<Record<string, unknown>> {
  if (entries.filter((e) => e.operation !== 'Apply').length <= max) return entries;
  const managers = decodeManagers(entries);
  const updaters = [...managers.entries()]
    .filter(([, e]) => e.operation === 'Update')
    .map(([id, e]) => ({ ...e, id }))
    .sort(byAge);
  const firstOfVersion = new Map<string, string>();
  let count = updaters.length;
  for (const u of updaters) {
    if (count <= max) break;
    const bucketId = identityOf({ manager: AncientChangesManager, operation: 'Update', apiVersion: u.apiVersion });
    const first = firstOfVersion.get(u.apiVersion);
    if (first === undefined || u.id === bucketId) {
      firstOfVersion.set(u.apiVersion, first ?? u.id);
      continue;
    }
    // The oldest entry of this version becomes the bucket the next ones fold into.
    let bucket = managers.get(bucketId);
    if (!bucket) {
      const oldest = managers.get(first);
      if (!oldest) continue;
      managers.delete(first);
      bucket = {
        manager: AncientChangesManager,
        operation: 'Update',
        apiVersion: u.apiVersion,
        fields: oldest.fields,
        ...(oldest.time !== undefined ? { time: oldest.time } : {}),
      };
      managers.set(bucketId, bucket);
    }
    const folded = managers.get(u.id);
    if (!folded) continue;
    bucket.fields = bucket.fields.union(folded.fields);
    if (folded.time !== undefined) bucket.time = folded.time;
    managers.delete(u.id);
    count--;
  }
  return encodeManagers(managers);
}
