// How a logged value becomes text, in every log format: errors become their message chain, bigints their
// digits, cycles a marker, and a Kubernetes Secret never more than its name, so a Secret handed to a
// logger by mistake cannot put credentials or user data in a log line.
export const REDACTED = '[redacted]';

/** JSON text of a value with the rules above; never throws. */
export function safeStringify(value: unknown): string {
  const seen = new WeakSet<object>();
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (v instanceof Error) return errorText(v);
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'object' && v !== null) {
        if (seen.has(v)) return '[Circular]';
        seen.add(v);
        if (isSecret(v)) return secretStandIn(v);
      }
      return v;
    }) ?? 'null'
  );
}

/**
 * An error's message followed by its causes' (up to five), joined as Go's wrapped errors print. A cause whose
 * message the text already holds is left out: an error that wraps another usually repeats its message
 * (`failed to sync machines: DELETE ...: socket hang up`), and printing the chain in full would say the same
 * thing once per level.
 */
export function errorText(err: Error): string {
  let text = err.message;
  let cause: unknown = err.cause;
  for (let depth = 0; cause !== undefined && depth < 5; depth++) {
    const message = cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : safeStringify(cause);
    if (!text.includes(message)) text += `: ${message}`;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return text;
}

interface SecretLike {
  kind: 'Secret';
  metadata?: { name?: unknown; namespace?: unknown };
}

function isSecret(v: object): v is SecretLike {
  return (v as { kind?: unknown }).kind === 'Secret' && ('data' in v || 'stringData' in v);
}

function secretStandIn(s: SecretLike): Record<string, unknown> {
  return { kind: 'Secret', metadata: { namespace: s.metadata?.namespace, name: s.metadata?.name }, data: REDACTED };
}
