// One rule compiled: what the evaluator needs to know about it before running it, and matches() on RE2.
import { expect } from 'chai';
import { compileRule, RuleCompileError } from '../../../../../sim/apiserver/schema/cel/program.js';

describe('compileRule', () => {
  it('knows a transition rule by its use of oldSelf', () => {
    expect(compileRule('self == oldSelf').transition).to.equal(true);
    expect(compileRule("self == 'oldSelf'").transition).to.equal(false);
    expect(compileRule('has(self.a)').transition).to.equal(false);
  });

  it('measures comprehension nesting and the size of the tree', () => {
    expect(compileRule('self.a == 1').comprehensionDepth).to.equal(0);
    expect(compileRule('self.all(x, x > 0)').comprehensionDepth).to.equal(1);
    expect(compileRule('self.all(x, self.exists(y, y == x)) && self.map(z, z).size() > 0').comprehensionDepth).to.equal(
      2,
    );
    expect(compileRule('1 + 2').nodes).to.equal(3);
  });

  it("answers matches() as CEL's RE2 does: a search anywhere in the string, in Go's regexp syntax", () => {
    const rule = compileRule("self.matches('b+')");
    expect(rule.evaluate({ self: 'abbc' })).to.equal(true);
    expect(rule.evaluate({ self: 'ac' })).to.equal(false);
    expect(compileRule("matches(self, '^a\\\\pL$')").evaluate({ self: 'aé' })).to.equal(true);
  });

  it('leaves a rule without matches() exactly as written, strings and all', () => {
    expect(compileRule("self + 'matches(\\'x\\')'").evaluate({ self: 'a' })).to.equal("amatches('x')");
  });

  it('throws RuleCompileError with the parser message for a rule that does not parse', () => {
    expect(() => compileRule('self ==')).to.throw(RuleCompileError, /Unexpected token/);
  });
});
