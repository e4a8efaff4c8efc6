// A count over a scenario's time as the JSON keeps it: a point where the count changes and at the end of each
// flat stretch, so a step line through them is what the polls saw.
import { expect } from 'chai';
import { CountSeries } from '../../hack/bench/count-series.js';

describe('bench count series', () => {
  it('keeps the first and last sample of a flat stretch and every change, in seconds to 10 ms', () => {
    const s = new CountSeries();
    for (const [t, n] of [
      [0, 0],
      [1.0049, 0],
      [2, 0],
      [3, 0],
      [4, 5],
      [5, 5],
      [6, 9],
    ] as const)
      s.add(t, n);
    expect(s.points).to.deep.equal([
      [0, 0],
      [3, 0],
      [4, 5],
      [5, 5],
      [6, 9],
    ]);
  });

  it('keeps a count that goes back to an earlier value', () => {
    const s = new CountSeries();
    s.add(0, 3);
    s.add(1, 2);
    s.add(2, 3);
    expect(s.points).to.deep.equal([
      [0, 3],
      [1, 2],
      [2, 3],
    ]);
  });
});
