// Read-your-writes: a copy older than our own last write is stale; a copy at or past it clears the record.
import { expect } from 'chai';
import { WrittenVersions } from '../../../lib/runtime/index.js';

describe('WrittenVersions', () => {
  it('calls a copy older than our last write stale, and forgets the write once a fresh copy is seen', () => {
    const w = new WrittenVersions();
    w.record('ns/m', '120');
    expect(w.isStale('ns/m', '119')).to.equal(true);
    expect(w.isStale('ns/m', '120')).to.equal(false);
    expect(w.size).to.equal(0);
    expect(w.isStale('ns/m', '5')).to.equal(false);
  });

  it('keeps the newest of several writes and compares versions as numbers, not strings', () => {
    const w = new WrittenVersions();
    w.record('k', '99');
    w.record('k', '100');
    w.record('k', '98');
    expect(w.isStale('k', '99')).to.equal(true);
    expect(w.isStale('k', '100')).to.equal(false);
  });

  it('never calls anything stale when a version is not an integer, nor for keys it never wrote', () => {
    const w = new WrittenVersions();
    w.record('k', 'abc');
    expect(w.isStale('k', '1')).to.equal(false);
    w.record('k', '10');
    expect(w.isStale('k', 'xyz')).to.equal(false);
    expect(w.isStale('other', '1')).to.equal(false);
  });

  it('forgets a key on request', () => {
    const w = new WrittenVersions();
    w.record('k', '10');
    w.forget('k');
    expect(w.isStale('k', '1')).to.equal(false);
  });
});
