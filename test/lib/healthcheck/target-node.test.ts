import { expect } from 'chai';
import type { Node } from '../../../lib/apis/core.js';
import type { KubeObject } from '../../../lib/apis/meta.js';
import { ApiError } from '../../../lib/client/errors.js';
import type { KubeClient, ObjectKey } from '../../../lib/client/kube-client.js';
import type { Resource } from '../../../lib/client/resources.js';
import { lookupTargetNode } from '../../../lib/healthcheck/target-node.js';

function fakeClient(nodes: Record<string, Node>, failWith?: Error): Pick<KubeClient, 'get'> & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    get<T extends KubeObject>(_r: Resource<T>, key: ObjectKey): Promise<T> {
      reads.push(key.name);
      if (failWith) return Promise.reject(failWith);
      const n = nodes[key.name];
      if (!n)
        return Promise.reject(new ApiError(404, { reason: 'NotFound', message: `nodes "${key.name}" not found` }));
      return Promise.resolve(n as unknown as T);
    },
  };
}

const node = (name: string): Node => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, uid: `uid-${name}` } });
const signal = new AbortController().signal;

describe('the node a MachineHealthCheck target points at', () => {
  it('comes from the cache when the cache has it, without an API read', async () => {
    const client = fakeClient({});
    const n = await lookupTargetNode('a', () => node('a'), client, signal);
    expect(n.metadata.uid).to.equal('uid-a');
    expect(client.reads).to.deep.equal([]);
  });

  it('is read from the API when the cache has not seen it yet, so a new node is never taken for a deleted one', async () => {
    const client = fakeClient({ b: node('b') });
    const n = await lookupTargetNode('b', () => undefined, client, signal);
    expect(n.metadata.uid).to.equal('uid-b');
  });

  it('is a name-only node (does not exist) when the API says NotFound too', async () => {
    const n = await lookupTargetNode('c', () => undefined, fakeClient({}), signal);
    expect(n).to.deep.equal({ metadata: { name: 'c' } });
  });

  it('fails the reconcile on any other read error rather than guessing', async () => {
    const err = await lookupTargetNode(
      'd',
      () => undefined,
      fakeClient({}, new Error('connection refused')),
      signal,
    ).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).to.equal('connection refused');
  });
});
