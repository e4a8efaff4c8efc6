// --feature-gates=Name=true,Other=false
export class FeatureGateError extends Error {
  override readonly name = 'FeatureGateError';
}

export function parseFeatureGates(text: string): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^([A-Za-z0-9][A-Za-z0-9_.-]*)=(true|false)$/i.exec(part);
    if (!m) throw new FeatureGateError(`--feature-gates: ${JSON.stringify(part)} must be Name=true or Name=false`);
    gates[m[1]!] = m[2]!.toLowerCase() === 'true';
  }
  return gates;
}
