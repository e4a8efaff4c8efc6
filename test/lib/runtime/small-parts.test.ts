import { expect } from 'chai';
import { Writable } from 'node:stream';
import { collectionPath, objectPath, withQuery } from '../../../lib/client/paths.js';
import { withResourceVersionLock } from '../../../lib/client/http-kube-client.js';
import { ConfigMaps, Machines, Nodes, Pods } from '../../../lib/client/resources.js';
import { FakeClock } from '../../../lib/runtime/fake-clock.js';
import { createLogger } from '../../../lib/runtime/json-logger.js';
import { decideOutcome, isTerminal } from '../../../lib/runtime/reconcile-outcome.js';
import { parseBindAddress } from '../../../lib/runtime/probe-server.js';
import { microTime } from '../../../lib/runtime/leader-elector.js';
import { TerminalError } from '../../../lib/runtime/types.js';

describe('decideOutcome', () => {
  it('maps success, requeueAfterMs, errors and terminal errors to the queue action and metric label', () => {
    expect(decideOutcome({ ok: true, result: undefined })).to.deep.equal({ action: 'forget', result: 'success' });
    expect(decideOutcome({ ok: true, result: { requeueAfterMs: 0 } })).to.deep.equal({ action: 'forget', result: 'success' });
    expect(decideOutcome({ ok: true, result: { requeueAfterMs: 20_000 } })).to.deep.equal({ action: 'forget-and-add-after', result: 'requeue_after', delayMs: 20_000 });
    expect(decideOutcome({ ok: false, error: new Error('x') }).action).to.equal('add-rate-limited');
    expect(decideOutcome({ ok: false, error: 'a string' }).action).to.equal('add-rate-limited');
    expect(decideOutcome({ ok: false, error: new TerminalError('bad') }).action).to.equal('drop');
  });

  it('finds a TerminalError anywhere in the cause chain or an AggregateError, and survives cycles', () => {
    const deep = new Error('a', { cause: new Error('b', { cause: new TerminalError('c') }) });
    expect(isTerminal(deep)).to.equal(true);
    expect(isTerminal(new AggregateError([new Error('x'), new TerminalError('y')]))).to.equal(true);
    const cyclic = new Error('loop') as Error & { cause?: unknown };
    cyclic.cause = cyclic;
    expect(isTerminal(cyclic)).to.equal(false);
  });
});

describe('REST paths', () => {
  it('build core, group, namespaced and cluster-scoped paths', () => {
    expect(collectionPath(Pods, 'ns')).to.equal('/api/v1/namespaces/ns/pods');
    expect(collectionPath(Pods, undefined)).to.equal('/api/v1/pods');
    expect(collectionPath(Nodes, 'ignored')).to.equal('/api/v1/nodes');
    expect(objectPath(Machines, { namespace: 'ns', name: 'm 1' }, 'status')).to.equal('/apis/machine.openshift.io/v1beta1/namespaces/ns/machines/m%201/status');
    expect(withQuery('/x', { a: 'b c', skip: undefined, empty: '', n: 5 })).to.equal('/x?a=b+c&n=5');
    expect(() => objectPath(ConfigMaps, { name: 'x' })).to.throw(/metadata.namespace is required/);
  });

  it('puts the optimistic lock into a merge patch body or as a replace op of a JSON patch', () => {
    expect(withResourceVersionLock({ type: 'merge', body: { metadata: { labels: { a: 'b' } } } }, '7')).to.deep.equal({ metadata: { labels: { a: 'b' }, resourceVersion: '7' } });
    expect(withResourceVersionLock({ type: 'json', body: [{ op: 'remove', path: '/x' }] }, '7')).to.deep.equal([
      { op: 'replace', path: '/metadata/resourceVersion', value: '7' },
      { op: 'remove', path: '/x' },
    ]);
  });
});

describe('FakeClock', () => {
  it('fires due timers in due-time order as time steps, including timers scheduled by timers', () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b@20'), 20);
    clock.setTimeout(() => {
      fired.push('a@10');
      clock.setTimeout(() => fired.push('c@15'), 5);
    }, 10);
    const cancelled = clock.setTimeout(() => fired.push('never'), 5);
    cancelled.cancel();
    clock.step(19);
    expect(fired).to.deep.equal(['a@10', 'c@15']);
    expect(clock.now()).to.equal(19);
    clock.step(1);
    expect(fired).to.deep.equal(['a@10', 'c@15', 'b@20']);
  });

  it('resolves sleep() through its timers and rejects it on abort', async () => {
    const clock = new FakeClock(0);
    let woke = false;
    const p = clock.sleep(100).then(() => (woke = true));
    clock.step(99);
    await Promise.resolve();
    expect(woke).to.equal(false);
    clock.step(1);
    await p;
    expect(woke).to.equal(true);
    const ac = new AbortController();
    const s = clock.sleep(100, ac.signal);
    ac.abort(new Error('stop'));
    await s.then(() => expect.fail('should reject'), (e: Error) => expect(e.message).to.equal('stop'));
    expect(clock.pendingTimers()).to.equal(0);
  });
});

describe('createLogger', () => {
  function capture(level: number) {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({ write(chunk: Buffer, _enc, cb) { lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>); cb(); } });
    return { lines, log: createLogger({ level, stream, clock: new FakeClock(0), fields: { app: 't' } }) };
  }

  it('writes JSON lines with level, ts, msg, inherited child fields and error messages', () => {
    const { lines, log } = capture(0);
    log.child({ controller: 'machine' }).child({ key: 'ns/m' }).error('failed', { error: new Error('outer', { cause: new Error('inner') }) });
    expect(lines[0]).to.deep.equal({ level: 'error', ts: '1970-01-01T00:00:00.000Z', msg: 'failed', app: 't', controller: 'machine', key: 'ns/m', error: 'outer: inner' });
  });

  it('prints debug(…, n) only at -v >= n', () => {
    const { lines, log } = capture(2);
    log.debug('two', {}, 2);
    log.debug('three', {}, 3);
    expect(lines.map((l) => l.msg)).to.deep.equal(['two']);
  });
});

describe('parseBindAddress', () => {
  it('reads ":port", "host:port", "[v6]:port" and treats "0"/"" as disabled', () => {
    expect(parseBindAddress(':8081')).to.deep.equal({ host: undefined, port: 8081 });
    expect(parseBindAddress('127.0.0.1:0')).to.deep.equal({ host: '127.0.0.1', port: 0 });
    expect(parseBindAddress('[::1]:9440')).to.deep.equal({ host: '::1', port: 9440 });
    expect(parseBindAddress('0')).to.equal(undefined);
    expect(parseBindAddress('')).to.equal(undefined);
    expect(() => parseBindAddress('8081')).to.throw(/must look like "host:port"/);
  });
});

describe('microTime', () => {
  it('prints six fractional digits as metav1.MicroTime does', () => {
    expect(microTime(Date.UTC(2026, 10, 22, 4, 49, 34, 34))).to.equal('2026-11-22T04:49:34.034000Z');
  });
});
