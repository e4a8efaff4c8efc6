import { expect } from 'chai';
import { dropOlderThan } from '../../../lib/base/oldest-first.js';

describe('dropOlderThan (a map kept oldest first)', () => {
  it('drops the entries older than the bound from the front and keeps the rest in order', () => {
    const m = new Map([
      ['a', 10],
      ['b', 20],
      ['c', 30],
    ]);
    dropOlderThan(m, 20);
    expect([...m]).to.deep.equal([
      ['b', 20],
      ['c', 30],
    ]);
  });

  it('stops at the first entry that is not older, as a map kept oldest first has nothing older behind it', () => {
    const m = new Map([
      ['fresh', 50],
      ['out-of-order', 5],
    ]);
    dropOlderThan(m, 20);
    expect([...m.keys()]).to.deep.equal(['fresh', 'out-of-order']);
  });
});
