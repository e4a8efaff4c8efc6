import { expect } from 'chai';
import { collectionPath, objectPath, withQuery } from '../../../lib/client/paths.js';
import { withResourceVersionLock } from '../../../lib/client/http-kube-client.js';
import { ConfigMaps, Machines, Nodes, Pods } from '../../../lib/client/resources.js';
import { decideOutcome, isTerminal } from '../../../lib/runtime/reconcile-outcome.js';
import { requestFromKey, requestKey } from '../../../lib/runtime/request-key.js';
import { parseBindAddress } from '../../../lib/runtime/probe-server.js';
import { microTime } from '../../../lib/runtime/leader-elector.js';
import { TerminalError } from '../../../lib/runtime/types.js';

describe('decideOutcome', () => {
  it('maps success, requeueAfterMs, errors and terminal errors to the queue action and metric label', () => {
    expect(decideOutcome({ ok: true, result: undefined })).to.deep.equal({ action: 'forget', result: 'success' });
    expect(decideOutcome({ ok: true, result: { requeueAfterMs: 0 } })).to.deep.equal({
      action: 'forget',
      result: 'success',
    });
    expect(decideOutcome({ ok: true, result: { requeueAfterMs: 20_000 } })).to.deep.equal({
      action: 'forget-and-add-after',
      result: 'requeue_after',
      delayMs: 20_000,
    });
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
    expect(objectPath(Machines, { namespace: 'ns', name: 'm 1' }, 'status')).to.equal(
      '/apis/machine.openshift.io/v1beta1/namespaces/ns/machines/m%201/status',
    );
    expect(withQuery('/x', { a: 'b c', skip: undefined, empty: '', n: 5 })).to.equal('/x?a=b+c&n=5');
    expect(() => objectPath(ConfigMaps, { name: 'x' })).to.throw(/metadata.namespace is required/);
  });

  it('puts the optimistic lock into a merge patch body or as a replace op of a JSON patch', () => {
    expect(withResourceVersionLock({ type: 'merge', body: { metadata: { labels: { a: 'b' } } } }, '7')).to.deep.equal({
      metadata: { labels: { a: 'b' }, resourceVersion: '7' },
    });
    expect(withResourceVersionLock({ type: 'json', body: [{ op: 'remove', path: '/x' }] }, '7')).to.deep.equal([
      { op: 'replace', path: '/metadata/resourceVersion', value: '7' },
      { op: 'remove', path: '/x' },
    ]);
  });
});

describe('requestKey', () => {
  it('is the namespacedKey of a request, and requestFromKey reads it back (no namespace when cluster-scoped)', () => {
    expect(requestKey({ namespace: 'ns', name: 'm' })).to.equal('ns/m');
    expect(requestKey({ name: 'node-1' })).to.equal('node-1');
    expect(requestFromKey('ns/m')).to.deep.equal({ namespace: 'ns', name: 'm' });
    expect(requestFromKey('node-1')).to.deep.equal({ name: 'node-1' });
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
