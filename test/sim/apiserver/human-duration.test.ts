import { expect } from 'chai';
import { humanDuration } from '../../../sim/apiserver/human-duration.js';
import { day, hour, minute } from './printing-fixtures.js';

describe('humanDuration', () => {
  const cases: Array<[number, string]> = [
    [-5000, '<invalid>'],
    [-1000, '0s'],
    [0, '0s'],
    [59_000, '59s'],
    [119_000, '119s'],
    [2 * minute, '2m'],
    [5 * minute + 30_000, '5m30s'],
    [10 * minute + 30_000, '10m'],
    [179 * minute, '179m'],
    [3 * hour, '3h'],
    [3 * hour + 20 * minute, '3h20m'],
    [8 * hour + 20 * minute, '8h'],
    [47 * hour, '47h'],
    [2 * day, '2d'],
    [2 * day + 5 * hour, '2d5h'],
    [8 * day + 5 * hour, '8d'],
    [729 * day, '729d'],
    [365 * 2 * day + 40 * day, '2y40d'],
    [365 * 9 * day, '9y'],
  ];
  for (const [ms, want] of cases) {
    it(`renders ${ms} ms as ${want}`, () => {
      expect(humanDuration(ms)).to.equal(want);
    });
  }
});
