import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogSegment } from '../../../../sim/apiserver/persistence/log-segment.js';

describe('envtest write-ahead log: a segment', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'envtest-segment-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('commits the lines appended in one turn of the event loop with one sync, and later ones in order after it', async () => {
    const batches: number[] = [];
    const path = join(dir, 'wal-0000000001.jsonl');
    const seg = new LogSegment(
      path,
      dir,
      Promise.resolve(),
      (n) => batches.push(n),
      (err) => {
        throw err;
      },
    );
    for (let i = 0; i < 100; i++) seg.append(`line ${i}\n`);
    await new Promise((r) => setImmediate(r));
    seg.append('line 100\n');
    await seg.seal();
    expect(batches[0]).to.equal(100);
    expect(batches.reduce((a, b) => a + b, 0)).to.equal(101);
    expect(readFileSync(path, 'utf8').split('\n').slice(99)).to.deep.equal(['line 99', 'line 100', '']);
  });

  it('syncs nothing before the previous segment has ended', async () => {
    const order: string[] = [];
    let endPrevious!: () => void;
    const previous = new Promise<void>((r) => (endPrevious = r));
    const seg = new LogSegment(
      join(dir, 'wal-0000000002.jsonl'),
      dir,
      previous,
      () => order.push('synced'),
      (err) => {
        throw err;
      },
    );
    seg.append('x\n');
    await new Promise((r) => setTimeout(r, 20));
    order.push('previous ended');
    endPrevious();
    await seg.seal();
    expect(order).to.deep.equal(['previous ended', 'synced']);
  });

  it('reports a failed write instead of calling it durable', async () => {
    let failure: Error | undefined;
    let synced = 0;
    // The segment file may not exist yet: one that does is never appended to (it may end torn).
    const path = join(dir, 'taken.jsonl');
    const other = new LogSegment(
      path,
      dir,
      Promise.resolve(),
      () => undefined,
      () => undefined,
    );
    other.append('first\n');
    await other.seal();
    const seg = new LogSegment(
      path,
      dir,
      Promise.resolve(),
      () => synced++,
      (err) => (failure = err),
    );
    seg.append('second\n');
    await seg.seal();
    expect(synced).to.equal(0);
    expect(failure?.message).to.contain('EEXIST');
  });
});
