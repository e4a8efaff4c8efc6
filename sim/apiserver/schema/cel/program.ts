// One x-kubernetes-validations rule compiled once: the CEL program (@marcbachmann/cel-js) with `self` and
// `oldSelf` declared, whether it is a transition rule (it reads oldSelf), and the shape of its syntax tree that
// the cost bound needs. `matches` is answered by RE2 (re2js), as kube-apiserver's Go regexp answers it: linear in
// the string, so no pattern can stall the server by backtracking over hostile input.
import { Environment, serialize, type ASTNode } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';

/** The CEL built-in that takes a regular expression; rewritten to the RE2 function below. */
const MATCHES = 'matches';
const RE2_MATCHES = 'matchesRE2';
/** The macros that iterate over a list or map: each nesting multiplies the work by the size of the data. */
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

const re2Cache = new Map<string, RE2JS>();
function re2(pattern: string): RE2JS {
  let re = re2Cache.get(pattern);
  if (re === undefined) {
    re = RE2JS.compile(pattern);
    if (re2Cache.size > 1000) re2Cache.clear();
    re2Cache.set(pattern, re);
  }
  return re;
}

function re2Matches(s: string, pattern: string): boolean {
  return re2(pattern).matcher(s).find();
}

const environment = new Environment({ limits: { maxAstNodes: 10_000, maxDepth: 100 } })
  .registerVariable('self', 'dyn')
  .registerVariable('oldSelf', 'dyn')
  .registerFunction(`string.${RE2_MATCHES}(string): bool`, re2Matches)
  .registerFunction(`${RE2_MATCHES}(string, string): bool`, re2Matches);

export interface CompiledRule {
  evaluate(vars: { self: unknown; oldSelf?: unknown }): unknown;
  /** The rule reads oldSelf, so it runs only on an update where the old value is known. */
  transition: boolean;
  /** Nodes of the syntax tree. */
  nodes: number;
  /** Deepest nesting of comprehension macros (all, exists, map, ...). */
  comprehensionDepth: number;
}

interface Walked {
  nodes: number;
  depth: number;
  oldSelf: boolean;
  /** A `matches` call was renamed to the RE2 function. */
  renamed: boolean;
}

const EMPTY: Walked = { nodes: 0, depth: 0, oldSelf: false, renamed: false };

function isNode(v: unknown): v is { op: string; args: unknown } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { op?: unknown }).op === 'string';
}

function combine(a: Walked, b: Walked): Walked {
  return {
    nodes: a.nodes + b.nodes,
    depth: Math.max(a.depth, b.depth),
    oldSelf: a.oldSelf || b.oldSelf,
    renamed: a.renamed || b.renamed,
  };
}

/** Counts nodes, finds comprehension depth and oldSelf, and renames `matches` to the RE2 function in place. */
function walk(value: unknown): Walked {
  if (Array.isArray(value)) return value.map(walk).reduce(combine, EMPTY);
  if (!isNode(value)) return EMPTY;
  const { op, args } = value;
  const call = (op === 'rcall' || op === 'call') && Array.isArray(args) ? args : undefined;
  const renamed = call?.[0] === MATCHES;
  if (renamed) call[0] = RE2_MATCHES;
  const inner = walk(args);
  const comprehension = op === 'rcall' && typeof call?.[0] === 'string' && COMPREHENSIONS.has(call[0]) ? 1 : 0;
  return {
    nodes: inner.nodes + 1,
    depth: inner.depth + comprehension,
    oldSelf: inner.oldSelf || (op === 'id' && args === 'oldSelf'),
    renamed: inner.renamed || renamed,
  };
}

/** Thrown when a rule does not compile: kube refuses such a CRD; here the rule reports it at evaluation. */
export class RuleCompileError extends Error {}

/** Compiles a rule (throws RuleCompileError with the parser's message). */
export function compileRule(rule: string): CompiledRule {
  try {
    const parsed = environment.parse(rule);
    const ast: ASTNode = structuredClone(parsed.ast);
    const shape = walk(ast);
    // Only a rule that calls matches() is rebuilt from its rewritten tree; every other runs as parsed.
    const program = shape.renamed ? environment.parse(serialize(ast)) : parsed;
    return {
      evaluate: (vars) => program(vars),
      transition: shape.oldSelf,
      nodes: shape.nodes,
      comprehensionDepth: shape.depth,
    };
  } catch (err) {
    throw new RuleCompileError(err instanceof Error ? err.message : String(err));
  }
}

const compiled = new Map<string, CompiledRule | RuleCompileError>();

/** compileRule, cached by rule text (CRDs are few; their rules are evaluated on every write). */
export function cachedRule(rule: string): CompiledRule | RuleCompileError {
  let c = compiled.get(rule);
  if (c === undefined) {
    try {
      c = compileRule(rule);
    } catch (err) {
      c = err instanceof RuleCompileError ? err : new RuleCompileError(String(err));
    }
    if (compiled.size > 10_000) compiled.clear();
    compiled.set(rule, c);
  }
  return c;
}
