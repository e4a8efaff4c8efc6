// A CRD whose x-kubernetes-validations rule (or messageExpression) does not compile is refused at creation, as
// kube-apiserver refuses it, with the rule's path in the schema (properties[name], items,
// additionalProperties, as kube writes schema paths) and the compiler's message.
import type { FieldCause, JSONSchemaProps } from '../types.js';
import { goQuote } from '../causes.js';
import { cachedRule, RuleCompileError } from './program.js';

function compileCause(field: string, text: string, err: RuleCompileError): FieldCause {
  const first = err.message.split('\n')[0] ?? '';
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${goQuote(text)}: compilation failed: ${first}` };
}

/** Causes for every rule under `s` that does not compile; `path` is the schema's own path in the CRD. */
export function ruleCompileCauses(s: JSONSchemaProps | undefined, path: string): FieldCause[] {
  if (s === undefined) return [];
  const out: FieldCause[] = [];
  (s['x-kubernetes-validations'] ?? []).forEach((rule, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    const compiled = cachedRule(rule.rule ?? '');
    if (compiled instanceof RuleCompileError) out.push(compileCause(`${at}.rule`, rule.rule ?? '', compiled));
    if (rule.messageExpression !== undefined && rule.messageExpression !== '') {
      const m = cachedRule(rule.messageExpression);
      if (m instanceof RuleCompileError) out.push(compileCause(`${at}.messageExpression`, rule.messageExpression, m));
    }
  });
  for (const [name, prop] of Object.entries(s.properties ?? {}))
    out.push(...ruleCompileCauses(prop, `${path}.properties[${name}]`));
  if (s.items !== undefined) out.push(...ruleCompileCauses(s.items, `${path}.items`));
  if (typeof s.additionalProperties === 'object')
    out.push(...ruleCompileCauses(s.additionalProperties, `${path}.additionalProperties`));
  (s.allOf ?? []).forEach((sub, i) => out.push(...ruleCompileCauses(sub, `${path}.allOf[${i}]`)));
  return out;
}
