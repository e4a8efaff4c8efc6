// The cost cap of one rule evaluation, fixed and decided before the rule runs, so that no input can make a rule
// run long. Without comprehensions a rule does a bounded number of steps, each at most linear in the data it was
// given (comparisons, string functions), which is no more than decoding the request already cost. Each nesting
// level of a comprehension macro (all, exists, map, filter) can repeat the whole rule once per element (of the
// data, or of a list written in the rule), so the bound is the rule's size times (data size + rule size)^(depth + 1); past kube-apiserver's per-expression limit the rule is
// not run and the write fails with kube's cost error. kube-apiserver also keeps a budget per request.
import type { CompiledRule } from './program.js';

/** kube-apiserver's per-expression runtime cost limit (celconfig.PerCallLimit). */
export const PER_CALL_LIMIT = 1_000_000;
/** kube-apiserver's runtime cost budget of one request (celconfig.RuntimeCELCostBudget). */
export const REQUEST_BUDGET = 10_000_000;

/** The bound on the steps of one evaluation of `rule` over data of `size` (see dataSize). */
export function costBound(rule: Pick<CompiledRule, 'nodes' | 'comprehensionDepth'>, size: number): number {
  if (rule.comprehensionDepth === 0) return rule.nodes;
  // A comprehension walks either the data or a list written in the rule, whose length its node count bounds.
  return rule.nodes * (size + rule.nodes + 1) ** (rule.comprehensionDepth + 1);
}
