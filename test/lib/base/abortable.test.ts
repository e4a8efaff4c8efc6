import { expect } from 'chai';
import { abortable } from '../../../lib/base/abortable.js';

describe('abortable', () => {
  it('passes the promise through without a signal, or with one that never aborts', async () => {
    expect(await abortable(Promise.resolve(1), undefined)).to.equal(1);
    expect(await abortable(Promise.resolve(2), new AbortController().signal)).to.equal(2);
    await abortable(Promise.reject(new Error('boom')), new AbortController().signal).then(
      () => expect.fail('should reject'),
      (e: Error) => expect(e.message).to.equal('boom'),
    );
  });

  it('rejects with the reason when the signal aborts first, while the work runs on for others', async () => {
    let finish!: (v: string) => void;
    const work = new Promise<string>((resolve) => (finish = resolve));
    const ac = new AbortController();
    const waiting = abortable(work, ac.signal);
    ac.abort(new Error('stop'));
    await waiting.then(
      () => expect.fail('should reject'),
      (e: Error) => expect(e.message).to.equal('stop'),
    );
    finish('done');
    expect(await work).to.equal('done');
  });

  it('rejects at once for a signal already aborted, with an AbortError for a non-Error reason', async () => {
    const ac = new AbortController();
    ac.abort('gone');
    const err = (await abortable(Promise.resolve(1), ac.signal).catch((e: unknown) => e)) as Error;
    expect(err.name).to.equal('AbortError');
    expect(err.message).to.equal('gone');
  });
});
