// ProviderIDs are compared by cloud scheme plus the instance's own id, case-insensitively, because the
// same instance shows up as "aws:///us-east-1a/i-0abc" on the Node and "aws:///i-0abc" elsewhere.

/** "aws:///us-east-1a/i-0ABC" → "aws:i-0abc"; undefined for an empty or unparsable id. */
export function normalizeProviderID(providerID: string | undefined | null): string | undefined {
  if (!providerID) return undefined;
  const trimmed = providerID.trim();
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/.exec(trimmed);
  if (!m) return trimmed.toLowerCase() || undefined;
  const scheme = (m[1] ?? '').toLowerCase();
  const segments = (m[2] ?? '').split('/').filter((s) => s.length > 0);
  const last = segments[segments.length - 1];
  if (!last) return undefined;
  return `${scheme}:${last.toLowerCase()}`;
}
