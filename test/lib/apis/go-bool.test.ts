import { expect } from 'chai';
import { GoBoolSyntaxError, parseGoBool } from '../../../lib/apis/go-bool.js';

describe('parseGoBool', () => {
  it("takes every spelling Go's strconv.ParseBool takes", () => {
    for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) expect(parseGoBool(t), t).to.equal(true);
    for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False']) expect(parseGoBool(f), f).to.equal(false);
  });
  it('rejects anything else with a typed error naming what was read', () => {
    for (const bad of ['yes', 'on', 'tRUE', '', ' true', 'true ']) {
      expect(() => parseGoBool(bad, '--logtostderr'), bad).to.throw(
        GoBoolSyntaxError,
        /--logtostderr must be a boolean/,
      );
    }
  });
});
