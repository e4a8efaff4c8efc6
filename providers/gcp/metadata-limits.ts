// GCE's caps on instance metadata, where the user data goes: 256 KB for one value and 512 KB for every key and
// value of the instance together. Checked on the items as they will be sent (the user data after its Windows
// rewrite, with the spec's gcpMetadata), before any GCE call, so that user data GCE would refuse on every retry
// fails the Machine at once, naming its Secret (the rule itself is lib's checkUserDataSize).
import {
  checkUserDataSize,
  checkUserDataTotal,
  USER_DATA_SECRET_KEY,
  type Machine,
  type SizeLimit,
} from '../../lib/index.js';
import { metadataItems } from './instances.js';
import type { GCPMachineProviderSpec } from './provider-spec.js';

export const GCE_METADATA_VALUE_LIMIT: SizeLimit = { maxBytes: 256 * 1024, what: 'one GCE metadata value' };
export const GCE_METADATA_TOTAL_LIMIT: SizeLimit = {
  maxBytes: 512 * 1024,
  what: 'GCE instance metadata in all (every key and value)',
};

/**
 * Throws InvalidConfiguration when the user data of the spec's Secret makes a metadata value or the metadata in
 * all larger than GCE takes. User data the spec's gcpMetadata replaces is not sent, so it is not counted.
 */
export function checkUserDataMetadata(machine: Machine, spec: GCPMachineProviderSpec, userData: string): void {
  const name = spec.userDataSecret?.name;
  if (!name) return;
  const [first, ...rest] = metadataItems(machine, spec, userData);
  if (!first || spec.gcpMetadata?.some((m) => m.key === first.key)) return;
  const source = { namespace: machine.metadata.namespace ?? '', name, key: USER_DATA_SECRET_KEY };
  const bytes = Buffer.byteLength(first.value);
  checkUserDataSize(source, bytes, GCE_METADATA_VALUE_LIMIT);
  let total = Buffer.byteLength(first.key) + bytes;
  for (const item of rest) total += Buffer.byteLength(item.key) + Buffer.byteLength(item.value);
  checkUserDataTotal(source, bytes, total, GCE_METADATA_TOTAL_LIMIT);
}
