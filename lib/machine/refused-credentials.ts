// A cloud that refuses the credentials a Machine's providerSpec names (a wrong or revoked key, a rotated secret)
// is something only the person who owns the Secret can fix, so every report of it names that Secret. The
// refusal is retried like any other error: clients are rebuilt when the Secret's content changes, so the first
// reconcile after the fix goes through.
import type { Machine } from '../apis/machine-types.js';
import type { EventRecorder } from '../client/event-recorder.js';

/**
 * Errors are objects the provider may not own, so the Secret (and the provider's words for the refusal) ride
 * beside them rather than on them.
 */
const refusals = new WeakMap<object, { secret: string; described: string }>();

/** The "namespace/name" of the credentials Secret the Machine's providerSpec names; undefined when none. */
export function credentialsSecretOf(machine: Machine): string | undefined {
  return credentialsSecretIn(machine.metadata.namespace ?? '', machine.spec?.providerSpec?.value);
}

/** The "namespace/name" of the credentials Secret a providerSpec value names (every cloud's credentialsSecret). */
export function credentialsSecretIn(namespace: string, providerSpecValue: unknown): string | undefined {
  const value = providerSpecValue as { credentialsSecret?: { name?: unknown } } | null | undefined;
  const name = value?.credentialsSecret?.name;
  return typeof name === 'string' && name !== '' ? `${namespace}/${name}` : undefined;
}

/** Whether `test` holds for an error or one of the causes under it (a provider may wrap the cloud's answer). */
export function anyCause(err: unknown, test: (e: unknown) => boolean): boolean {
  let e = err;
  for (let depth = 0; depth < 5 && e !== undefined && e !== null; depth++) {
    if (test(e)) return true;
    if (typeof e !== 'object') return false;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Marks `err` as the cloud refusing the credentials of `secret` ("namespace/name"); `described` is the refusal
 * in the provider's words (its cloud's code and message).
 */
export function markRefusedCredentials(err: unknown, secret: string, described: string): void {
  if (typeof err === 'object' && err !== null && !refusals.has(err)) refusals.set(err, { secret, described });
}

/** The Secret whose credentials the cloud refused with `err`, if it did. */
export function refusedCredentialsSecret(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null ? refusals.get(err)?.secret : undefined;
}

/** What an event adds to the cloud's error when it refused the Secret's credentials. */
export function refusedCredentialsNote(secret: string): string {
  return `the cloud refused the credentials in Secret ${secret}; fix the Secret and the next reconcile uses them`;
}

/**
 * When `err` is a refusal of the Machine's credentials: a Failed<verb> Warning event naming the Secret. For
 * failures outside the actuator's create, update and delete, which report their own.
 */
export function reportRefusedCredentials(
  machine: Machine,
  err: unknown,
  verb: 'Create' | 'Update' | 'Delete',
  events: EventRecorder,
): void {
  const r = typeof err === 'object' && err !== null ? refusals.get(err) : undefined;
  if (!r) return;
  events.event(
    machine,
    'Warning',
    `Failed${verb}`,
    verb,
    `${machine.metadata.name ?? ''}: ${r.described}; ${refusedCredentialsNote(r.secret)}`,
  );
}
