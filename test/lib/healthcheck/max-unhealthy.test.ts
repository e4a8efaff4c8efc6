import { expect } from 'chai';
import { IntOrPercentError } from '../../../lib/apis/int-or-percent.js';
import { remediationBudget } from '../../../lib/healthcheck/max-unhealthy.js';

describe('MachineHealthCheck remediation budget', () => {
  it('allows every machine to be unhealthy when maxUnhealthy is unset', () => {
    expect(remediationBudget(undefined, 5, 5)).to.deep.equal({ allowed: true, remediationsAllowed: 0 });
    expect(remediationBudget(undefined, 5, 2)).to.deep.equal({ allowed: true, remediationsAllowed: 3 });
  });

  it('allows remediation while unhealthy <= maxUnhealthy and reports what is left', () => {
    expect(remediationBudget('40%', 10, 3)).to.deep.equal({ allowed: true, remediationsAllowed: 1 });
    expect(remediationBudget('40%', 10, 4)).to.deep.equal({ allowed: true, remediationsAllowed: 0 });
    expect(remediationBudget('40%', 10, 5)).to.deep.equal({ allowed: false, remediationsAllowed: 0 });
    expect(remediationBudget('40%', 7, 3)).to.deep.equal({ allowed: false, remediationsAllowed: 0 });
    expect(remediationBudget('3', 10, 3)).to.deep.equal({ allowed: true, remediationsAllowed: 0 });
    expect(remediationBudget(2, 10, 1)).to.deep.equal({ allowed: true, remediationsAllowed: 1 });
  });

  it('blocks all remediation for 0, and a negative value counts as 0', () => {
    expect(remediationBudget(0, 3, 1).allowed).to.equal(false);
    expect(remediationBudget('0%', 3, 1).allowed).to.equal(false);
    expect(remediationBudget(-1, 3, 0)).to.deep.equal({ allowed: true, remediationsAllowed: 0 });
  });

  it('allows nothing when maxUnhealthy cannot be read, and says why with the reference message', () => {
    const b = remediationBudget('abc%', 3, 0);
    expect(b.allowed).to.equal(false);
    expect(b.error).to.be.instanceOf(IntOrPercentError);
    expect(b.error!.message).to.equal(
      'invalid value for IntOrString: invalid value "abc%": strconv.Atoi: parsing "abc": invalid syntax',
    );
  });
});
