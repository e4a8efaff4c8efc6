// The JSONPath dialect of kubectl and of CRD additionalPrinterColumns (k8s.io/client-go/util/jsonpath):
// `.a.b`, escaped dots in names (`.metadata.annotations.machine\.openshift\.io/instance-state`),
// `['x.y']`, `[0]`, `[-1]`, `[1:3]`, `[*]`, `.*`, `..name`, `['a','b']`, `[0,2]`, and filters
// `[?(@.type=="Ready")]` with == != < <= > >= or plain existence. Missing keys yield no result, never an error.

export class JsonPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPathError';
  }
}

type Literal = { kind: 'literal'; value: unknown };
type Operand = Literal | { kind: 'path'; steps: Step[] };

type Step =
  | { kind: 'field'; names: string[] }
  | { kind: 'wildcard' }
  | { kind: 'recursive' }
  | { kind: 'index'; indices: number[] }
  | { kind: 'slice'; start?: number; end?: number; step?: number }
  | { kind: 'filter'; left: Operand; op?: string; right?: Operand };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function unescapeName(name: string): string {
  return name.replace(/\\(.)/g, '$1');
}

/** Index of the `]` closing the bracket opened at `open`, skipping quoted text and nested brackets. */
function closingBracket(src: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < src.length; i++) {
    const c = src[i];
    if (quote !== undefined) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  throw new JsonPathError(`unclosed array expect ] in ${JSON.stringify(src)}`);
}

/** Splits on commas outside quotes. */
function splitList(s: string): string[] {
  const parts: string[] = [];
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote !== undefined) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === ',') {
      parts.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(s.slice(start).trim());
  return parts;
}

function unquote(s: string): string | undefined {
  if (s.length >= 2 && (s[0] === "'" || s[0] === '"') && s[s.length - 1] === s[0]) return unescapeName(s.slice(1, -1));
  return undefined;
}

function parseInteger(s: string, src: string): number {
  if (!/^-?\d+$/.test(s)) throw new JsonPathError(`invalid array index ${JSON.stringify(s)} in ${JSON.stringify(src)}`);
  return Number(s);
}

const filterOps = ['==', '!=', '<=', '>=', '<', '>'];

function findOperator(expr: string): { op: string; at: number } | undefined {
  let quote: string | undefined;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i];
    if (quote !== undefined) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      continue;
    }
    const op = filterOps.find((o) => expr.startsWith(o, i));
    if (op !== undefined) return { op, at: i };
  }
  return undefined;
}

function parseOperand(s: string, src: string): Operand {
  const text = s.trim();
  if (text.startsWith('@') || text.startsWith('$')) return { kind: 'path', steps: parseSteps(text.slice(1), src) };
  const quoted = unquote(text);
  if (quoted !== undefined) return { kind: 'literal', value: quoted };
  if (text === 'true' || text === 'false') return { kind: 'literal', value: text === 'true' };
  if (text === 'nil' || text === 'null') return { kind: 'literal', value: null };
  if (text !== '' && !Number.isNaN(Number(text))) return { kind: 'literal', value: Number(text) };
  throw new JsonPathError(`unrecognized filter operand ${JSON.stringify(text)} in ${JSON.stringify(src)}`);
}

function parseBracket(inner: string, src: string): Step {
  const body = inner.trim();
  if (body.startsWith('?')) {
    const expr = body.slice(1).trim();
    if (!expr.startsWith('(') || !expr.endsWith(')'))
      throw new JsonPathError(`invalid filter ${JSON.stringify(body)} in ${JSON.stringify(src)}`);
    const cond = expr.slice(1, -1);
    const found = findOperator(cond);
    if (found === undefined) return { kind: 'filter', left: parseOperand(cond, src) };
    return {
      kind: 'filter',
      left: parseOperand(cond.slice(0, found.at), src),
      op: found.op,
      right: parseOperand(cond.slice(found.at + found.op.length), src),
    };
  }
  if (body === '*') return { kind: 'wildcard' };
  const parts = splitList(body);
  const names = parts.map(unquote);
  if (names.every((n): n is string => n !== undefined)) return { kind: 'field', names };
  if (parts.length === 1 && body.includes(':')) {
    const [a = '', b = '', c = ''] = body.split(':').map((p) => p.trim());
    return {
      kind: 'slice',
      start: a === '' ? undefined : parseInteger(a, src),
      end: b === '' ? undefined : parseInteger(b, src),
      step: c === '' ? undefined : parseInteger(c, src),
    };
  }
  if (parts.every((p) => /^-?\d+$/.test(p))) return { kind: 'index', indices: parts.map((p) => parseInteger(p, src)) };
  if (parts.length === 1) return { kind: 'field', names: [unescapeName(body)] };
  throw new JsonPathError(`invalid array expression ${JSON.stringify(body)} in ${JSON.stringify(src)}`);
}

function parseSteps(path: string, src: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i];
    if (c === '[') {
      const close = closingBracket(path, i);
      steps.push(parseBracket(path.slice(i + 1, close), src));
      i = close + 1;
    } else if (c === '.') {
      if (path[i + 1] === '.') {
        steps.push({ kind: 'recursive' });
        i += 2;
        continue;
      }
      let j = i + 1;
      while (j < path.length && path[j] !== '.' && path[j] !== '[') j += path[j] === '\\' ? 2 : 1;
      const raw = path.slice(i + 1, j);
      if (raw === '*') steps.push({ kind: 'wildcard' });
      else if (raw !== '') steps.push({ kind: 'field', names: [unescapeName(raw)] });
      i = j;
    } else if (/\s/.test(c ?? '')) {
      i++;
    } else {
      // A path written without a leading dot (e.g. "status.phase") reads as if it had one.
      let j = i;
      while (j < path.length && path[j] !== '.' && path[j] !== '[') j += path[j] === '\\' ? 2 : 1;
      steps.push({ kind: 'field', names: [unescapeName(path.slice(i, j))] });
      i = j;
    }
  }
  return steps;
}

const parsedCache = new Map<string, Step[]>();

function parse(jsonPath: string): Step[] {
  const cached = parsedCache.get(jsonPath);
  if (cached !== undefined) return cached;
  let text = jsonPath.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim();
  if (text.startsWith('$')) text = text.slice(1);
  const steps = parseSteps(text, jsonPath);
  if (parsedCache.size > 500) parsedCache.clear();
  parsedCache.set(jsonPath, steps);
  return steps;
}

function descendants(v: unknown, out: unknown[]): void {
  out.push(v);
  if (Array.isArray(v)) for (const item of v) descendants(item, out);
  else if (isRecord(v)) for (const item of Object.values(v)) descendants(item, out);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

function ordered(a: number | string, op: string, b: number | string): boolean {
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    default:
      return a >= b;
  }
}

function compare(a: unknown, op: string, b: unknown): boolean {
  if (op === '==') return sameJson(a, b);
  if (op === '!=') return !sameJson(a, b);
  if (typeof a === 'number' && typeof b === 'number') return ordered(a, op, b);
  if (typeof a === 'string' && typeof b === 'string') return ordered(a, op, b);
  return false;
}

function operandValues(o: Operand, item: unknown): unknown[] {
  return o.kind === 'literal' ? [o.value] : evalSteps([item], o.steps);
}

function filterMatches(step: Extract<Step, { kind: 'filter' }>, item: unknown): boolean {
  const left = operandValues(step.left, item);
  if (step.op === undefined || step.right === undefined) return left.length > 0;
  const right = operandValues(step.right, item);
  const op = step.op;
  return left.some((l) => right.some((r) => compare(l, op, r)));
}

function applyStep(values: unknown[], step: Step): unknown[] {
  const out: unknown[] = [];
  for (const v of values) {
    switch (step.kind) {
      case 'field':
        if (isRecord(v)) for (const n of step.names) if (n in v) out.push(v[n]);
        break;
      case 'wildcard':
        if (Array.isArray(v)) out.push(...v);
        else if (isRecord(v)) out.push(...Object.values(v));
        break;
      case 'recursive':
        descendants(v, out);
        break;
      case 'index':
        if (Array.isArray(v)) {
          for (const i of step.indices) {
            const at = i < 0 ? v.length + i : i;
            if (at >= 0 && at < v.length) out.push(v[at]);
          }
        }
        break;
      case 'slice':
        if (Array.isArray(v)) out.push(...slice(v, step));
        break;
      case 'filter':
        if (Array.isArray(v)) out.push(...v.filter((item) => filterMatches(step, item)));
        break;
    }
  }
  return out;
}

function slice(v: unknown[], s: { start?: number; end?: number; step?: number }): unknown[] {
  const len = v.length;
  const norm = (i: number) => (i < 0 ? Math.max(0, len + i) : Math.min(i, len));
  const start = norm(s.start ?? 0);
  const end = norm(s.end ?? len);
  const step = s.step ?? 1;
  if (step <= 0) return [];
  const out: unknown[] = [];
  for (let i = start; i < end; i += step) out.push(v[i]);
  return out;
}

function evalSteps(roots: unknown[], steps: Step[]): unknown[] {
  return steps.reduce(applyStep, roots);
}

/**
 * Every value `jsonPath` selects in `obj`, in document order; [] when nothing matches.
 * Throws JsonPathError when the expression itself cannot be parsed.
 */
export function evalJsonPath(obj: unknown, jsonPath: string): unknown[] {
  return evalSteps([obj], parse(jsonPath));
}
