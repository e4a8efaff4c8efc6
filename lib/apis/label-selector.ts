// Kubernetes label selectors: the string syntax (`a=b,c in (x,y),!d`), the LabelSelector object
// (matchLabels + matchExpressions), matching, and the canonical string form (FormatLabelSelector).
// Semantics follow apimachinery's labels package: requirements are kept sorted by key, values are a sorted
// set, a missing label satisfies `!=` and `notin`, and an empty selector matches everything.
import type { LabelSelector } from './meta.js';
import { labelKeyErrors, labelValueErrors } from './label-validation.js';

export interface LabelRequirement {
  key: string;
  operator: '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!';
  values: string[];
}

export interface Selector {
  readonly requirements: LabelRequirement[];
  /** True when there are no requirements: the selector matches every object. */
  readonly empty: boolean;
  matches(labels: Record<string, string> | undefined): boolean;
  /** The canonical string form; parsing it yields an equal selector. '' when empty. */
  toString(): string;
}

export class LabelSelectorError extends Error {
  override name = 'LabelSelectorError';
}

type Operator = LabelRequirement['operator'];

/** Builds one requirement, checking the key, each value and the value count the operator needs. */
export function newRequirement(key: string, operator: Operator, values: readonly string[] = []): LabelRequirement {
  const keyErrs = labelKeyErrors(key);
  if (keyErrs.length > 0) throw new LabelSelectorError(`invalid label key "${key}": ${keyErrs.join('; ')}`);
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0)
        throw new LabelSelectorError(`key "${key}": for 'in' and 'notin' operators the values set can't be empty`);
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1)
        throw new LabelSelectorError(`key "${key}": exact-match operators need exactly one value`);
      break;
    case 'exists':
    case '!':
      if (values.length !== 0)
        throw new LabelSelectorError(`key "${key}": values set must be empty for exists and does not exist`);
      break;
    default:
      throw new LabelSelectorError(`"${String(operator)}" is not a valid label selector operator`);
  }
  for (const v of values) {
    const valErrs = labelValueErrors(v);
    if (valErrs.length > 0)
      throw new LabelSelectorError(`invalid label value "${v}" for key "${key}": ${valErrs.join('; ')}`);
  }
  return { key, operator, values: [...new Set(values)].sort(compareStrings) };
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function requirementMatches(r: LabelRequirement, labels: Record<string, string> | undefined): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key]! : undefined;
  switch (r.operator) {
    case '=':
    case '==':
    case 'in':
      return value !== undefined && r.values.includes(value);
    case '!=':
    case 'notin':
      return value === undefined || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
  }
}

function requirementToString(r: LabelRequirement): string {
  switch (r.operator) {
    case '!':
      return `!${r.key}`;
    case 'exists':
      return r.key;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
    default:
      return `${r.key}${r.operator}${r.values[0] ?? ''}`;
  }
}

class RequirementSelector implements Selector {
  readonly requirements: LabelRequirement[];
  constructor(requirements: LabelRequirement[]) {
    // Stable sort by key only, as apimachinery's ByKey does; order within one key stays as given.
    this.requirements = [...requirements].sort((a, b) => compareStrings(a.key, b.key));
  }
  get empty(): boolean {
    return this.requirements.length === 0;
  }
  matches(labels: Record<string, string> | undefined): boolean {
    return this.requirements.every((r) => requirementMatches(r, labels));
  }
  toString(): string {
    return this.requirements.map(requirementToString).join(',');
  }
}

/** A selector from already-validated requirements (sorted by key on construction). */
export function selectorFromRequirements(requirements: LabelRequirement[]): Selector {
  return new RequirementSelector(requirements);
}

/** The selector that matches everything. */
export function everything(): Selector {
  return new RequirementSelector([]);
}

/**
 * labels.SelectorFromSet: every label in `set` must be present with that value; an empty or missing set
 * matches everything. Throws LabelSelectorError on an invalid key or value.
 */
export function selectorFromSet(set: Record<string, string> | undefined): Selector {
  return new RequirementSelector(Object.entries(set ?? {}).map(([k, v]) => newRequirement(k, '=', [v])));
}

// ---- string syntax --------------------------------------------------------------------------------------

type TokenKind = 'ident' | '!' | '!=' | '=' | '==' | 'in' | 'notin' | '(' | ')' | ',' | '<' | '>' | 'end';
interface Token {
  kind: TokenKind;
  text: string;
  pos: number;
}

const SPECIAL = new Set(['!', '=', '(', ')', ',', '<', '>']);
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (SPECIAL.has(c)) {
      const two = s.slice(i, i + 2);
      if (two === '!=' || two === '==') {
        out.push({ kind: two, text: two, pos: i });
        i += 2;
      } else {
        out.push({ kind: c as TokenKind, text: c, pos: i });
        i++;
      }
      continue;
    }
    const start = i;
    while (i < s.length && !isSpace(s[i]!) && !SPECIAL.has(s[i]!)) i++;
    const text = s.slice(start, i);
    out.push({ kind: text === 'in' ? 'in' : text === 'notin' ? 'notin' : 'ident', text, pos: start });
  }
  out.push({ kind: 'end', text: 'end of string', pos: s.length });
  return out;
}

class Parser {
  private readonly tokens: Token[];
  private i = 0;
  constructor(private readonly input: string) {
    this.tokens = tokenize(input);
  }

  private peek(): Token {
    return this.tokens[this.i]!;
  }
  private next(): Token {
    const t = this.tokens[this.i]!;
    if (t.kind !== 'end') this.i++;
    return t;
  }
  private fail(t: Token, expected: string): never {
    throw new LabelSelectorError(
      `unable to parse label selector "${this.input}": found '${t.text}' at position ${t.pos}, expected ${expected}`,
    );
  }
  // Inside a value position, the keywords `in`/`notin` are ordinary words.
  private isValueWord(t: Token): boolean {
    return t.kind === 'ident' || t.kind === 'in' || t.kind === 'notin';
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    if (this.peek().kind === 'end') return reqs;
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'ident' && t.kind !== '!') this.fail(t, "'!' or a label key");
      reqs.push(this.parseRequirement());
      const after = this.next();
      if (after.kind === 'end') return reqs;
      if (after.kind !== ',') this.fail(after, "',' or end of string");
    }
  }

  private parseRequirement(): LabelRequirement {
    let negated = false;
    if (this.peek().kind === '!') {
      this.next();
      negated = true;
    }
    const keyTok = this.next();
    if (keyTok.kind !== 'ident') this.fail(keyTok, 'a label key');
    const key = keyTok.text;
    const la = this.peek().kind;
    if (negated) {
      if (la !== ',' && la !== 'end') this.fail(this.peek(), "',' or end of string after '!key'");
      return newRequirement(key, '!');
    }
    if (la === ',' || la === 'end') return newRequirement(key, 'exists');

    const opTok = this.next();
    switch (opTok.kind) {
      case 'in':
      case 'notin':
        return newRequirement(key, opTok.kind, this.parseValueSet());
      case '=':
      case '==':
      case '!=':
        return newRequirement(key, opTok.kind, [this.parseExactValue()]);
      case '<':
      case '>':
        throw new LabelSelectorError(
          `unable to parse label selector "${this.input}": the '${opTok.kind}' operator is not supported for label selectors here`,
        );
      default:
        this.fail(opTok, "one of '=', '==', '!=', 'in', 'notin'");
    }
  }

  private parseExactValue(): string {
    const t = this.peek();
    // `a=` selects an empty value.
    if (t.kind === ',' || t.kind === 'end') return '';
    if (!this.isValueWord(t)) this.fail(t, 'a label value');
    this.next();
    return t.text;
  }

  // `(` v1 `,` v2 ... `)`. Empty slots stand for the empty value exactly where apimachinery accepts them:
  // `()`, `(,a)`, `(a,)`, `(a,,b)` parse, while `(a,,)` and `(,,)` are errors there and here.
  private parseValueSet(): string[] {
    const open = this.next();
    if (open.kind !== '(') this.fail(open, "'('");
    const first = this.peek();
    if (first.kind === ')') {
      this.next();
      return [''];
    }
    if (!this.isValueWord(first) && first.kind !== ',') this.fail(first, "',', ')' or a label value");
    const values: string[] = [];
    for (;;) {
      const t = this.next();
      if (this.isValueWord(t)) {
        values.push(t.text);
        const la = this.peek();
        if (la.kind === ',') continue;
        if (la.kind === ')') {
          this.next();
          return values;
        }
        this.fail(la, "',' or ')'");
      } else if (t.kind === ',') {
        if (values.length === 0) values.push('');
        const la = this.peek();
        if (la.kind === ')') {
          this.next();
          values.push('');
          return values;
        }
        if (la.kind === ',') {
          this.next();
          values.push('');
        }
      } else {
        this.fail(t, "',' or a label value");
      }
    }
  }
}

/** Parses the Kubernetes string syntax; '' (or only whitespace) selects everything. */
export function parseSelector(s: string): Selector {
  return new RequirementSelector(new Parser(s).parse());
}

// ---- LabelSelector objects --------------------------------------------------------------------------------

const EXPRESSION_OPERATORS: Record<string, Operator> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * metav1.LabelSelectorAsSelector: matchLabels become `key=value`, matchExpressions map In/NotIn/Exists/
 * DoesNotExist to in/notin/exists/!. An undefined or empty selector matches everything.
 */
export function selectorFromLabelSelector(ls: LabelSelector | undefined): Selector {
  if (ls === undefined || ls === null) return everything();
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of Object.entries(ls.matchLabels ?? {})) {
    if (typeof v !== 'string') throw new LabelSelectorError(`matchLabels["${k}"]: value must be a string`);
    reqs.push(newRequirement(k, '=', [v]));
  }
  (ls.matchExpressions ?? []).forEach((expr, i) => {
    const op = EXPRESSION_OPERATORS[expr.operator];
    if (op === undefined) {
      throw new LabelSelectorError(
        `matchExpressions[${i}].operator: "${String(expr.operator)}" is not a valid label selector operator`,
      );
    }
    if ((op === 'in' || op === 'notin') && (expr.values ?? []).length === 0) {
      throw new LabelSelectorError(`matchExpressions[${i}].values: must be specified when operator is In or NotIn`);
    }
    if ((op === 'exists' || op === '!') && (expr.values ?? []).length > 0) {
      throw new LabelSelectorError(
        `matchExpressions[${i}].values: may not be specified when operator is Exists or DoesNotExist`,
      );
    }
    try {
      reqs.push(newRequirement(expr.key, op, expr.values ?? []));
    } catch (err) {
      if (err instanceof LabelSelectorError) throw new LabelSelectorError(`matchExpressions[${i}]: ${err.message}`);
      throw err;
    }
  });
  return new RequirementSelector(reqs);
}

/** Whether `labels` satisfy `ls`; an invalid selector throws LabelSelectorError. */
export function labelSelectorMatches(
  ls: LabelSelector | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  return selectorFromLabelSelector(ls).matches(labels);
}

/** metav1.FormatLabelSelector: the canonical string, '<none>' when it selects everything, '<error>' when invalid. */
export function formatLabelSelector(ls: LabelSelector | undefined): string {
  let sel: Selector;
  try {
    sel = selectorFromLabelSelector(ls);
  } catch (err) {
    if (err instanceof LabelSelectorError) return '<error>';
    throw err;
  }
  const s = sel.toString();
  return s.length === 0 ? '<none>' : s;
}
