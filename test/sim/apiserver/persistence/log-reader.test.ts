import { expect } from 'chai';
import { encodeRecord, parseSegment } from '../../../../sim/apiserver/persistence/log-reader.js';
import type { KubeObject } from '../../../../lib/apis/meta.js';

const cm = (name: string, rv: number): KubeObject => ({
  metadata: { namespace: 'n', name, resourceVersion: String(rv) },
});

describe('envtest write-ahead log: reading a segment back', () => {
  const whole =
    encodeRecord(1, 'put', '/configmaps', cm('a', 1)) +
    encodeRecord(2, 'put', '/configmaps', cm('b', 2)) +
    encodeRecord(3, 'delete', '/configmaps', cm('a', 3));

  it('returns every complete record in order', () => {
    const { records, ignoredBytes } = parseSegment(whole);
    expect(records.map((r) => [r.rv, r.op, r.object.metadata.name])).to.deep.equal([
      [1, 'put', 'a'],
      [2, 'put', 'b'],
      [3, 'delete', 'a'],
    ]);
    expect(ignoredBytes).to.equal(0);
  });

  it('ignores a last line cut short by a crash, never failing on it', () => {
    const torn = whole + encodeRecord(4, 'put', '/configmaps', cm('c', 4)).slice(0, 30);
    const { records, ignoredBytes } = parseSegment(torn);
    expect(records.map((r) => r.rv)).to.deep.equal([1, 2, 3]);
    expect(ignoredBytes).to.equal(30);
  });

  it('stops at a garbled line (pages of a batch that never reached the disk) and ignores the rest of the segment', () => {
    const garbled = whole + '\0'.repeat(12) + '\n' + encodeRecord(5, 'put', '/configmaps', cm('d', 5));
    const { records, ignoredBytes } = parseSegment(garbled);
    expect(records.map((r) => r.rv)).to.deep.equal([1, 2, 3]);
    expect(ignoredBytes).to.be.greaterThan(12);
  });

  it('does not take a line whose resourceVersion disagrees with its object or goes backwards as a record', () => {
    expect(
      parseSegment(`{"rv":7,"op":"put","typeKey":"/configmaps","object":${JSON.stringify(cm('x', 8))}}\n`).records,
    ).to.deep.equal([]);
    const backwards =
      encodeRecord(2, 'put', '/configmaps', cm('a', 2)) + encodeRecord(1, 'put', '/configmaps', cm('b', 1));
    expect(parseSegment(backwards).records.map((r) => r.rv)).to.deep.equal([2]);
  });
});
