// klog's --vmodule: per-file verbosity, "pattern=N,...". A pattern is matched against the caller's file name
// without its folder and extension (so "machine-controller=4" raises every line logged from
// machine-controller.ts), with Go's filepath.Match wildcards (*, ?, [a-z], [^a-z], \ to escape); the first
// pattern that matches gives the level. It only ever raises -v: a line is written when its level is at or
// below -v or its file's level.

export interface VmoduleFilter {
  pattern: string;
  level: number;
}

export class VmoduleSyntaxError extends Error {
  override readonly name = 'VmoduleSyntaxError';
}

export function parseVmodule(value: string): VmoduleFilter[] {
  const out: VmoduleFilter[] = [];
  for (const item of value.split(',')) {
    if (item === '') continue;
    const parts = item.split('=');
    const [pattern, level] = parts;
    if (parts.length !== 2 || !pattern || !level)
      throw new VmoduleSyntaxError(
        `syntax error: expect comma-separated list of filename=N, got ${JSON.stringify(item)}`,
      );
    const n = Number(level);
    if (!Number.isInteger(n))
      throw new VmoduleSyntaxError(
        `syntax error: expect comma-separated list of filename=N, got ${JSON.stringify(item)}`,
      );
    if (n < 0) throw new VmoduleSyntaxError(`negative value for vmodule level in ${JSON.stringify(item)}`);
    globMatch(pattern, ''); // a malformed pattern is an error now, not at the first line logged
    if (n > 0) out.push({ pattern, level: n });
  }
  return out;
}

/** The level the filters give a source file (a path or file: URL); 0 when none matches. */
export function vmoduleLevel(filters: readonly VmoduleFilter[], file: string): number {
  let name = file.slice(file.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  if (dot > 0) name = name.slice(0, dot);
  for (const f of filters) if (globMatch(f.pattern, name)) return f.level;
  return 0;
}

/** Go's filepath.Match for names without a separator; throws VmoduleSyntaxError on a malformed pattern. */
export function globMatch(pattern: string, name: string): boolean {
  const p = [...pattern];
  const s = [...name];
  // Backtracking over the last star: linear enough for file names.
  let pi = 0;
  let si = 0;
  let star = -1;
  let starSi = 0;
  let matched = true;
  while (si < s.length || pi < p.length) {
    if (pi < p.length && p[pi] === '*') {
      star = pi++;
      starSi = si;
      continue;
    }
    if (si < s.length && pi < p.length) {
      const step = matchOne(p, pi, s[si] ?? '');
      if (step > 0) {
        pi += step;
        si++;
        continue;
      }
    }
    if (star >= 0 && starSi < s.length) {
      pi = star + 1;
      si = ++starSi;
      continue;
    }
    matched = false;
    break;
  }
  if (!matched) validate(p, pi);
  return matched;
}

/** How many pattern characters matched `c` at p[i] (0 = no match). */
function matchOne(p: string[], i: number, c: string): number {
  const ch = p[i];
  if (ch === '?') return 1;
  if (ch === '\\') {
    if (i + 1 >= p.length) throw new VmoduleSyntaxError('syntax error in pattern: trailing backslash');
    return p[i + 1] === c ? 2 : 0;
  }
  if (ch !== '[') return ch === c ? 1 : 0;
  let j = i + 1;
  const negate = p[j] === '^';
  if (negate) j++;
  const start = j;
  let hit = false;
  while (j < p.length && p[j] !== ']') {
    let lo = p[j] ?? '';
    if (lo === '\\') lo = p[++j] ?? '';
    let hi = lo;
    if (p[j + 1] === '-' && p[j + 2] !== undefined && p[j + 2] !== ']') {
      hi = p[j + 2] === '\\' ? (p[j + 3] ?? '') : (p[j + 2] ?? '');
      j += p[j + 2] === '\\' ? 3 : 2;
    }
    if (lo <= c && c <= hi) hit = true;
    j++;
  }
  if (j >= p.length) throw new VmoduleSyntaxError('syntax error in pattern: unterminated [');
  if (j === start) throw new VmoduleSyntaxError('syntax error in pattern: empty character class');
  return hit !== negate ? j - i + 1 : 0;
}

/** Go reports a malformed pattern even when matching stops before it: check the rest. */
function validate(p: string[], from: number): void {
  for (let i = from; i < p.length; i++) {
    if (p[i] === '[' || p[i] === '\\') {
      const width = matchOne(p, i, '');
      if (width > 0) i += width - 1;
    }
  }
}
