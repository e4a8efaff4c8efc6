// A small PromQL evaluator for the alert rules we ship: the expression is parsed by Prometheus's own grammar
// (@prometheus-io/lezer-promql), and the node types those rules use are evaluated as Prometheus evaluates
// them at one instant: vector selectors with label matchers, range selectors under *_over_time functions,
// comparisons with a scalar (as filters), `unless`/`and` with on()/ignoring(), and sum/count/min/max/avg with
// by()/without(). Anything else is refused with UnsupportedPromqlError rather than evaluated approximately, so
// a rule that grows a construct this file does not know fails loudly instead of passing silently.
import type { SyntaxNode } from '@lezer/common';
import { parser } from '@prometheus-io/lezer-promql';

export type Labels = Record<string, string>;
export interface Sample {
  /** Milliseconds since the epoch. */
  t: number;
  v: number;
}
/** One time series: its labels (with __name__) and its samples in time order. */
export interface Series {
  labels: Labels;
  samples: Sample[];
}
export interface VectorElement {
  labels: Labels;
  value: number;
}

/** The expression uses PromQL this evaluator does not implement. */
export class UnsupportedPromqlError extends Error {
  override readonly name = 'UnsupportedPromqlError';
}
/** The expression does not parse as PromQL. */
export class PromqlSyntaxError extends Error {
  override readonly name = 'PromqlSyntaxError';
}

/** Prometheus's default lookback: an instant selector sees the newest sample at most this old. */
const LOOKBACK_MS = 5 * 60_000;

type Value =
  | { kind: 'scalar'; value: number }
  | { kind: 'vector'; elements: VectorElement[] }
  | { kind: 'matrix'; series: Series[] };

/** Evaluates `expr` at `atMs` over `series`; the result is the instant vector an alert rule fires for. */
export function evaluateInstant(expr: string, series: readonly Series[], atMs: number): VectorElement[] {
  const tree = parser.parse(expr);
  tree.iterate({
    enter(n) {
      if (n.type.isError) throw new PromqlSyntaxError(`${JSON.stringify(expr)} does not parse at offset ${n.from}`);
    },
  });
  const top = tree.topNode.firstChild;
  if (!top) throw new PromqlSyntaxError(`${JSON.stringify(expr)} is empty`);
  const value = new Evaluation(expr, series, atMs).eval(top);
  if (value.kind !== 'vector')
    throw new UnsupportedPromqlError(`${JSON.stringify(expr)} evaluates to a ${value.kind}, not an instant vector`);
  return value.elements;
}

class Evaluation {
  constructor(
    private readonly src: string,
    private readonly series: readonly Series[],
    private readonly at: number,
  ) {}

  eval(node: SyntaxNode): Value {
    switch (node.name) {
      case 'NumberDurationLiteral':
        return { kind: 'scalar', value: this.number(node) };
      case 'ParenExpr':
        return this.eval(this.onlyExprChild(node));
      case 'VectorSelector':
        return { kind: 'vector', elements: this.instant(node) };
      case 'MatrixSelector':
        return { kind: 'matrix', series: this.range(node) };
      case 'FunctionCall':
        return this.functionCall(node);
      case 'AggregateExpr':
        return this.aggregate(node);
      case 'BinaryExpr':
        return this.binary(node);
      default:
        throw this.unsupported(node);
    }
  }

  private text(node: SyntaxNode): string {
    return this.src.slice(node.from, node.to);
  }

  private unsupported(node: SyntaxNode, what = node.name): UnsupportedPromqlError {
    return new UnsupportedPromqlError(
      `${what} (in ${JSON.stringify(this.text(node))}) is not supported by this evaluator`,
    );
  }

  private children(node: SyntaxNode): SyntaxNode[] {
    const out: SyntaxNode[] = [];
    for (let c = node.firstChild; c; c = c.nextSibling) out.push(c);
    return out;
  }

  private onlyExprChild(node: SyntaxNode): SyntaxNode {
    const kids = this.children(node).filter((c) => c.type.is('Expr'));
    if (kids.length !== 1) throw this.unsupported(node);
    return kids[0]!;
  }

  private number(node: SyntaxNode): number {
    const n = Number(this.text(node));
    if (!Number.isFinite(n)) throw this.unsupported(node, 'a number literal other than a plain decimal');
    return n;
  }

  /** The series a selector names, each with its samples up to the evaluation time. */
  private selected(selector: SyntaxNode): Series[] {
    const matchers: Array<(labels: Labels) => boolean> = [];
    for (const c of this.children(selector)) {
      if (c.name === 'Identifier') {
        const name = this.text(c);
        matchers.push((l) => l.__name__ === name);
      } else if (c.name === 'LabelMatchers') {
        for (const m of this.children(c)) matchers.push(this.labelMatcher(m));
      } else {
        throw this.unsupported(c);
      }
    }
    return this.series.filter((s) => matchers.every((m) => m(s.labels)));
  }

  private labelMatcher(node: SyntaxNode): (labels: Labels) => boolean {
    if (node.name !== 'UnquotedLabelMatcher') throw this.unsupported(node);
    const [nameNode, opNode, valueNode] = this.children(node);
    if (!nameNode || !opNode || !valueNode) throw this.unsupported(node);
    const name = this.text(nameNode);
    const value = this.stringLiteral(valueNode);
    const op = opNode.firstChild?.name;
    const get = (l: Labels) => l[name] ?? '';
    switch (op) {
      case 'EqlSingle':
        return (l) => get(l) === value;
      case 'Neq':
        return (l) => get(l) !== value;
      case 'EqlRegex': {
        const alternatives = this.literalAlternation(valueNode, value);
        return (l) => alternatives.includes(get(l));
      }
      case 'NeqRegex': {
        const alternatives = this.literalAlternation(valueNode, value);
        return (l) => !alternatives.includes(get(l));
      }
      default:
        throw this.unsupported(opNode);
    }
  }

  /**
   * A regex matcher limited to an alternation of plain words ("Running|Deleting"), which Prometheus anchors at
   * both ends: it then means "equals one of these". Anything with another metacharacter is refused, so no
   * regular expression is ever compiled from the rule text.
   */
  private literalAlternation(node: SyntaxNode, pattern: string): string[] {
    const alternatives = pattern.split('|');
    if (!alternatives.every((a) => /^[A-Za-z0-9_:\- ]*$/.test(a)))
      throw this.unsupported(node, `the regex ${JSON.stringify(pattern)} (only alternations of plain words are)`);
    return alternatives;
  }

  private stringLiteral(node: SyntaxNode): string {
    const raw = this.text(node);
    if (node.name !== 'StringLiteral' || !raw.startsWith('"'))
      throw this.unsupported(node, 'a string literal other than a double-quoted one');
    return JSON.parse(raw) as string;
  }

  private instant(selector: SyntaxNode): VectorElement[] {
    const out: VectorElement[] = [];
    for (const s of this.selected(selector)) {
      const last = [...s.samples].reverse().find((p) => p.t <= this.at && p.t > this.at - LOOKBACK_MS);
      if (last) out.push({ labels: { ...s.labels }, value: last.v });
    }
    return out;
  }

  private range(node: SyntaxNode): Series[] {
    const [selector, duration, ...rest] = this.children(node);
    if (selector?.name !== 'VectorSelector' || duration?.name !== 'DurationExpr' || rest.length > 0)
      throw this.unsupported(node);
    const rangeMs = this.duration(duration);
    return this.selected(selector)
      .map((s) => ({ labels: s.labels, samples: s.samples.filter((p) => p.t <= this.at && p.t > this.at - rangeMs) }))
      .filter((s) => s.samples.length > 0);
  }

  /** A duration literal of one unit, as rules write them ("15m", "1h"). */
  private duration(node: SyntaxNode): number {
    const text = this.text(node);
    const m = /^(\d+)(ms|s|m|h|d|w|y)$/.exec(text);
    if (!m)
      throw this.unsupported(node, `the duration ${JSON.stringify(text)} (one number and one unit are supported)`);
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_536_000_000 }[
      m[2] as 'ms'
    ];
    return Number(m[1]) * unit;
  }

  private functionCall(node: SyntaxNode): Value {
    const [ident, body] = this.children(node);
    const fn = ident?.firstChild?.name;
    if (!body) throw this.unsupported(node);
    const over: Record<string, (vs: number[]) => number> = {
      AvgOverTime: (vs) => vs.reduce((a, b) => a + b, 0) / vs.length,
      MaxOverTime: (vs) => Math.max(...vs),
      MinOverTime: (vs) => Math.min(...vs),
      CountOverTime: (vs) => vs.length,
    };
    const reduce = fn ? over[fn] : undefined;
    if (!reduce) throw this.unsupported(ident ?? node, `the function ${this.text(ident ?? node)}`);
    const arg = this.eval(this.onlyExprChild(body));
    if (arg.kind !== 'matrix') throw this.unsupported(node, `${this.text(ident!)} of a ${arg.kind}`);
    // *_over_time functions drop the metric name, as every function does.
    return {
      kind: 'vector',
      elements: arg.series.map((s) => ({ labels: withoutName(s.labels), value: reduce(s.samples.map((p) => p.v)) })),
    };
  }

  private aggregate(node: SyntaxNode): Value {
    const kids = this.children(node);
    const op = kids.find((c) => c.name === 'AggregateOp')?.firstChild?.name;
    const modifier = kids.find((c) => c.name === 'AggregateModifier');
    const body = kids.find((c) => c.name === 'FunctionCallBody');
    if (!op || !body) throw this.unsupported(node);
    const reducers: Record<string, (vs: number[]) => number> = {
      Sum: (vs) => vs.reduce((a, b) => a + b, 0),
      Count: (vs) => vs.length,
      Max: (vs) => Math.max(...vs),
      Min: (vs) => Math.min(...vs),
      Avg: (vs) => vs.reduce((a, b) => a + b, 0) / vs.length,
    };
    const reduce = reducers[op];
    if (!reduce) throw this.unsupported(node, `the aggregation ${op}`);
    const arg = this.eval(this.onlyExprChild(body));
    if (arg.kind !== 'vector') throw this.unsupported(node, `${op} of a ${arg.kind}`);
    const grouping = modifier ? this.grouping(modifier) : { by: true, labels: [] };
    const groups = new Map<string, { labels: Labels; values: number[] }>();
    for (const e of arg.elements) {
      const labels = groupLabels(e.labels, grouping);
      const key = JSON.stringify(Object.entries(labels).sort());
      const g = groups.get(key) ?? { labels, values: [] };
      g.values.push(e.value);
      groups.set(key, g);
    }
    return {
      kind: 'vector',
      elements: [...groups.values()].map((g) => ({ labels: g.labels, value: reduce(g.values) })),
    };
  }

  private grouping(modifier: SyntaxNode): { by: boolean; labels: string[] } {
    const [kind, labels] = this.children(modifier);
    if (!kind || labels?.name !== 'GroupingLabels') throw this.unsupported(modifier);
    return {
      by: kind.name === 'By' || kind.name === 'On',
      labels: this.children(labels)
        .filter((c) => c.name === 'LabelName')
        .map((c) => this.text(c)),
    };
  }

  private binary(node: SyntaxNode): Value {
    const kids = this.children(node);
    const exprs = kids.filter((c) => c.type.is('Expr'));
    const op = kids.find((c) => !c.type.is('Expr') && c.name !== 'MatchingModifierClause' && c.name !== 'BoolModifier');
    const matching = kids.find((c) => c.name === 'MatchingModifierClause');
    if (exprs.length !== 2 || !op) throw this.unsupported(node);
    if (kids.some((c) => c.name === 'BoolModifier')) throw this.unsupported(node, 'the bool modifier');
    const lhs = this.eval(exprs[0]!);
    const rhs = this.eval(exprs[1]!);
    const compare: Record<string, (a: number, b: number) => boolean> = {
      Eql: (a, b) => a === b,
      Neq: (a, b) => a !== b,
      Gtr: (a, b) => a > b,
      Lss: (a, b) => a < b,
      Gte: (a, b) => a >= b,
      Lte: (a, b) => a <= b,
    };
    const cmp = compare[op.name];
    if (cmp) {
      // A comparison between a vector and a scalar filters the vector, keeping the samples for which it holds.
      if (lhs.kind === 'vector' && rhs.kind === 'scalar' && !matching)
        return { kind: 'vector', elements: lhs.elements.filter((e) => cmp(e.value, rhs.value)) };
      throw this.unsupported(node, `${op.name} between a ${lhs.kind} and a ${rhs.kind}`);
    }
    if (op.name === 'Unless' || op.name === 'And') {
      if (lhs.kind !== 'vector' || rhs.kind !== 'vector') throw this.unsupported(node, `${op.name} of non-vectors`);
      const on = matching ? this.matchingLabels(matching) : { by: false, labels: [] };
      const signature = (l: Labels) => JSON.stringify(Object.entries(groupLabels(l, on)).sort());
      const right = new Set(rhs.elements.map((e) => signature(e.labels)));
      const keep = op.name === 'And';
      return { kind: 'vector', elements: lhs.elements.filter((e) => right.has(signature(e.labels)) === keep) };
    }
    throw this.unsupported(op, `the operator ${this.text(op)}`);
  }

  /** on(...) matches on exactly these labels; ignoring(...) on every label but these and the metric name. */
  private matchingLabels(clause: SyntaxNode): { by: boolean; labels: string[] } {
    const kids = this.children(clause);
    if (kids.length !== 2) throw this.unsupported(clause, 'group_left/group_right');
    return this.grouping(clause);
  }
}

const withoutName = (labels: Labels): Labels => {
  const { __name__: _drop, ...rest } = labels;
  return rest;
};

/**
 * The labels that identify a group: by/on keeps the listed ones, without/ignoring drops them and the metric
 * name. Prometheus treats an empty label as absent, so empty values are left out.
 */
function groupLabels(labels: Labels, g: { by: boolean; labels: string[] }): Labels {
  const out: Labels = {};
  for (const [k, v] of Object.entries(labels)) {
    if (v === '') continue;
    if (g.by ? g.labels.includes(k) : k !== '__name__' && !g.labels.includes(k)) out[k] = v;
  }
  return out;
}
