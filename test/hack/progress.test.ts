// The bench's progress line: while a scenario waits, how many of the wanted Machines are there and the time so
// far; rewritten in place on a terminal, a plain line every few seconds into a file or pipe.
import { expect } from 'chai';
import { formatElapsed, progressPrinter, type ProgressStream } from '../../hack/bench/progress.js';

function recorder(isTTY: boolean): ProgressStream & { out: string[] } {
  const out: string[] = [];
  return { isTTY, out, write: (chunk: string) => out.push(chunk) };
}

function clock(startMs = 1_000) {
  let now = startMs;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('bench progress', () => {
  it('writes one plain line per update into a file or pipe, at most every plainEveryMs', () => {
    const stream = recorder(false);
    const c = clock();
    const p = progressPrinter({ stream, now: c.now, prefix: 'bench: ', plainEveryMs: 5_000 })(
      'scale-up-500',
      500,
      'Running',
    );
    p.update(0, 'Provisioning=500');
    c.advance(2_000);
    p.update(10); // 2 s after the last line: nothing
    c.advance(3_000);
    p.update(120, 'Provisioned=380 Running=120');
    c.advance(70_000);
    p.update(500);
    p.end();
    expect(stream.out).to.deep.equal([
      'bench: scale-up-500: 0/500 Running, 0 s (Provisioning=500)\n',
      'bench: scale-up-500: 120/500 Running, 5 s (Provisioned=380 Running=120)\n',
      'bench: scale-up-500: 500/500 Running, 1 min 15 s\n',
    ]);
  });

  it('rewrites one line on a terminal and erases it at the end, so the result line takes its place', () => {
    const stream = recorder(true);
    const c = clock();
    const p = progressPrinter({ stream, now: c.now, ttyEveryMs: 1_000 })('scale-down-100', 100, 'deleted');
    p.update(0);
    c.advance(400);
    p.update(3); // within the second: not redrawn
    c.advance(600);
    p.update(40);
    p.end();
    expect(stream.out).to.deep.equal([
      '\rscale-down-100: 0/100 deleted, 0 s\x1b[K',
      '\rscale-down-100: 40/100 deleted, 1 s\x1b[K',
      '\r\x1b[K',
    ]);
    expect(stream.out.join('')).not.to.include('\n');
  });

  it('leaves the terminal alone when a scenario ends before its first update', () => {
    const stream = recorder(true);
    const p = progressPrinter({ stream, now: clock().now })('steady-state-1', 2, 'resync periods');
    p.end();
    expect(stream.out).to.deep.equal([]);
  });

  it('times each scenario from its own start', () => {
    const stream = recorder(false);
    const c = clock();
    const start = progressPrinter({ stream, now: c.now });
    c.advance(90_000);
    start('scale-up-1', 1, 'Running').update(1);
    expect(stream.out).to.deep.equal(['scale-up-1: 1/1 Running, 0 s\n']);
  });

  it('says elapsed time in seconds, then minutes and seconds', () => {
    expect(formatElapsed(59_999)).to.equal('59 s');
    expect(formatElapsed(60_000)).to.equal('1 min 00 s');
    expect(formatElapsed(1_296_400)).to.equal('21 min 36 s');
  });
});
