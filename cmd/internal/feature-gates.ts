// --feature-gates=Name=true,Other=false. The machine-api-operator passes every OpenShift feature gate to
// every container that takes the flag; a binary honours the ones it knows and must start with the rest.
export class FeatureGateError extends Error {
  override readonly name = 'FeatureGateError';
}

export function parseFeatureGates(text: string): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z0-9][A-Za-z0-9_.-]*)=(true|false)$/i.exec(part);
    if (!m) throw new FeatureGateError(`--feature-gates: ${JSON.stringify(part)} must be Name=true or Name=false`);
    gates[m[1]!] = m[2]!.toLowerCase() === 'true';
  }
  return gates;
}

/** The gates these binaries act on; every other name is accepted and reported once at start. */
export const knownFeatureGates: ReadonlySet<string> = new Set(['MachineAPIMigration']);

/** Names in `gates` that no binary here acts on, sorted. */
export function unknownFeatureGates(gates: Readonly<Record<string, boolean>>): string[] {
  return Object.keys(gates)
    .filter((g) => !knownFeatureGates.has(g))
    .sort();
}
