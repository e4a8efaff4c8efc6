// GCE list filters: the AIP-160 style the client libraries send (`name = "x"`, `labels.role != worker`,
// `status = RUNNING AND (a = b OR c:*)`, `NOT x`, implicit AND by juxtaposition) and the older regular-expression
// form gcloud sends (`name eq ".*\bfoo\b.*"`, `ne`), where the RE2 pattern must match the whole field.
import { RE2JS } from 're2js';
import { invalidField } from './api-error.js';

export type FilterPredicate = (resource: Record<string, unknown>) => boolean;

type Op = '=' | '!=' | '<' | '>' | '<=' | '>=' | ':' | 'eq' | 'ne';

class FilterSyntaxError extends Error {}

class Parser {
  private pos = 0;
  constructor(private readonly s: string) {}

  parse(): FilterPredicate {
    this.skipWs();
    if (this.pos >= this.s.length) return () => true;
    const p = this.orExpr();
    this.skipWs();
    if (this.pos < this.s.length) throw new FilterSyntaxError(`unexpected '${this.s.slice(this.pos, this.pos + 10)}'`);
    return p;
  }

  private orExpr(): FilterPredicate {
    const terms = [this.andExpr()];
    while (this.keyword('OR')) terms.push(this.andExpr());
    return terms.length === 1 ? (terms[0] as FilterPredicate) : (r) => terms.some((t) => t(r));
  }

  private andExpr(): FilterPredicate {
    const terms = [this.unary()];
    for (;;) {
      this.skipWs();
      if (this.pos >= this.s.length || this.peek() === ')' || this.atKeyword('OR')) break;
      this.keyword('AND');
      terms.push(this.unary());
    }
    return terms.length === 1 ? (terms[0] as FilterPredicate) : (r) => terms.every((t) => t(r));
  }

  private unary(): FilterPredicate {
    this.skipWs();
    if (this.keyword('NOT')) {
      const inner = this.unary();
      return (r) => !inner(r);
    }
    if (this.peek() === '-') {
      this.pos++;
      const inner = this.unary();
      return (r) => !inner(r);
    }
    if (this.peek() === '(') {
      this.pos++;
      const inner = this.orExpr();
      this.skipWs();
      if (this.peek() !== ')') throw new FilterSyntaxError('missing )');
      this.pos++;
      return inner;
    }
    return this.comparison();
  }

  private comparison(): FilterPredicate {
    this.skipWs();
    const start = this.pos;
    while (this.pos < this.s.length && /[A-Za-z0-9_.-]/.test(this.s[this.pos] as string)) this.pos++;
    const field = this.s.slice(start, this.pos);
    if (!field) throw new FilterSyntaxError(`expected a field name at ${start}`);
    this.skipWs();
    const op = this.operator();
    this.skipWs();
    const value = this.value();
    return compile(field, op, value);
  }

  private operator(): Op {
    for (const op of ['!=', '<=', '>=', '=', '<', '>', ':'] as const) {
      if (this.s.startsWith(op, this.pos)) {
        this.pos += op.length;
        return op;
      }
    }
    for (const op of ['eq', 'ne'] as const) {
      if (this.s.startsWith(op, this.pos) && /\s/.test(this.s[this.pos + 2] ?? '')) {
        this.pos += 2;
        return op;
      }
    }
    throw new FilterSyntaxError(`expected a comparison operator at ${this.pos}`);
  }

  private value(): string {
    const q = this.peek();
    if (q === '"' || q === "'") {
      this.pos++;
      let out = '';
      while (this.pos < this.s.length && this.s[this.pos] !== q) {
        // Backslashes are kept: in the regular-expression form they belong to the pattern (e.g. \b).
        if (this.s[this.pos] === '\\' && this.s[this.pos + 1] === q) {
          out += q;
          this.pos += 2;
          continue;
        }
        out += this.s[this.pos];
        this.pos++;
      }
      if (this.pos >= this.s.length) throw new FilterSyntaxError('unterminated string');
      this.pos++;
      return out;
    }
    const start = this.pos;
    while (this.pos < this.s.length && !/[\s()]/.test(this.s[this.pos] as string)) this.pos++;
    if (start === this.pos) throw new FilterSyntaxError(`expected a value at ${start}`);
    return this.s.slice(start, this.pos);
  }

  private peek(): string | undefined {
    return this.s[this.pos];
  }

  private skipWs(): void {
    while (this.pos < this.s.length && /\s/.test(this.s[this.pos] as string)) this.pos++;
  }

  private atKeyword(k: string): boolean {
    this.skipWs();
    return this.s.startsWith(k, this.pos) && /[\s(]/.test(this.s[this.pos + k.length] ?? ' ');
  }

  private keyword(k: string): boolean {
    if (!this.atKeyword(k)) return false;
    this.pos += k.length;
    return true;
  }
}

/** Every value at a dotted path; arrays fan out, so `tags.items = x` matches any item. */
function valuesAt(obj: unknown, path: string[]): unknown[] {
  if (path.length === 0) return Array.isArray(obj) ? obj : [obj];
  if (Array.isArray(obj)) return obj.flatMap((o) => valuesAt(o, path));
  if (obj === null || typeof obj !== 'object') return [];
  const [head, ...rest] = path as [string, ...string[]];
  const next = (obj as Record<string, unknown>)[head];
  return next === undefined ? [] : valuesAt(next, rest);
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** A `*` wildcard pattern from a request; RE2 (re2js) runs it in time linear in the value. */
function globToMatcher(glob: string): RE2JS {
  return RE2JS.compile(
    glob
      .split('*')
      .map((p) => RE2JS.quote(p))
      .join('.*'),
    RE2JS.DOTALL,
  );
}

function compareOrdered(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (a !== '' && b !== '' && Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

function compile(field: string, op: Op, value: string): FilterPredicate {
  const path = field.split('.');
  switch (op) {
    case 'eq':
    case 'ne': {
      // The pattern comes from the request: RE2 (re2js) has GCE's own syntax and never backtracks.
      let re: RE2JS;
      try {
        re = RE2JS.compile(value);
      } catch {
        throw new FilterSyntaxError(`invalid regular expression '${value}'`);
      }
      const want = op === 'eq';
      return (r) => valuesAt(r, path).some((v) => re.testExact(text(v))) === want;
    }
    case '=':
    case '!=': {
      const matcher = value.includes('*') ? globToMatcher(value) : undefined;
      const eq = (v: unknown) => (matcher ? matcher.testExact(text(v)) : text(v) === value);
      return op === '=' ? (r) => valuesAt(r, path).some(eq) : (r) => !valuesAt(r, path).some(eq);
    }
    case ':': {
      if (value === '*') return (r) => valuesAt(r, path).length > 0;
      const matcher = globToMatcher(value.includes('*') ? value : `*${value}*`);
      return (r) => valuesAt(r, path).some((v) => matcher.testExact(text(v)));
    }
    default: {
      const test = (c: number) => (op === '<' ? c < 0 : op === '>' ? c > 0 : op === '<=' ? c <= 0 : c >= 0);
      return (r) => valuesAt(r, path).some((v) => test(compareOrdered(text(v), value)));
    }
  }
}

/** Parses a list filter; a malformed one is GCE's 400 invalid on field 'filter'. */
export function parseFilter(filter: string | null | undefined): FilterPredicate {
  if (!filter) return () => true;
  try {
    return new Parser(filter).parse();
  } catch (err) {
    if (err instanceof FilterSyntaxError)
      throw invalidField('filter', filter, `Invalid list filter expression: ${err.message}.`);
    throw err;
  }
}
