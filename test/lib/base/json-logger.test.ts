import { expect } from 'chai';
import { Writable } from 'node:stream';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { createLogger } from '../../../lib/base/json-logger.js';

describe('createLogger', () => {
  function capture(level: number) {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        cb();
      },
    });
    return { lines, log: createLogger({ level, stream, clock: new FakeClock(0), fields: { app: 't' } }) };
  }

  it('writes JSON lines with level, ts, msg, inherited child fields and error messages', () => {
    const { lines, log } = capture(0);
    log
      .child({ controller: 'machine' })
      .child({ key: 'ns/m' })
      .error('failed', { error: new Error('outer', { cause: new Error('inner') }) });
    expect(lines[0]).to.deep.equal({
      level: 'error',
      ts: '1970-01-01T00:00:00.000Z',
      msg: 'failed',
      app: 't',
      controller: 'machine',
      key: 'ns/m',
      error: 'outer: inner',
    });
  });

  it("prints a wrapped error's text once, leaving out causes whose message the wrapper already repeats", () => {
    const { lines, log } = capture(0);
    const hangUp = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const request = new Error(`DELETE /apis/machine.openshift.io/v1beta1/machines/m: ${hangUp.message}`, {
      cause: hangUp,
    });
    const sync = new Error(`failed to sync machines: ${request.message}`, { cause: request });
    log.error('Reconciler error', { error: sync });
    log.error('Reconciler error', { error: new Error('could not patch', { cause: request }) });
    expect(lines.map((l) => l.error)).to.deep.equal([
      'failed to sync machines: DELETE /apis/machine.openshift.io/v1beta1/machines/m: socket hang up',
      'could not patch: DELETE /apis/machine.openshift.io/v1beta1/machines/m: socket hang up',
    ]);
  });

  it('prints debug(…, n) only at -v >= n', () => {
    const { lines, log } = capture(2);
    log.debug('two', {}, 2);
    log.debug('three', {}, 3);
    expect(lines.map((l) => l.msg)).to.deep.equal(['two']);
  });
});
