import { expect } from 'chai';
import { SerialLock } from '../../../lib/base/serial-lock.js';

describe('SerialLock', () => {
  it('runs sections one at a time, in the order they asked', async () => {
    const lock = new SerialLock();
    const trace: string[] = [];
    const section = (name: string) => async () => {
      trace.push(`${name} in`);
      await new Promise((r) => setImmediate(r));
      trace.push(`${name} out`);
      return name;
    };
    const results = await Promise.all([lock.run(section('a')), lock.run(section('b')), lock.run(section('c'))]);
    expect(results).to.deep.equal(['a', 'b', 'c']);
    expect(trace).to.deep.equal(['a in', 'a out', 'b in', 'b out', 'c in', 'c out']);
  });

  it('lets the next section in after one that throws, and hands the error to its own caller', async () => {
    const lock = new SerialLock();
    const failed = lock.run(() => Promise.reject(new Error('boom')));
    const next = lock.run(() => Promise.resolve('next'));
    const outcome = await failed.then(
      () => 'resolved',
      (err: unknown) => (err instanceof Error ? err.message : 'not an Error'),
    );
    expect(outcome).to.equal('boom');
    expect(await next).to.equal('next');
  });
});
