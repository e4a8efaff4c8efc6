// The Node a covered machine's nodeRef names. The informer cache answers almost always; a node missing from
// it is confirmed with a live read before it counts as gone (the reference reads the API for every node),
// because "gone" means remediation — a deleted machine — and the Node watch can lag behind the Machine watch
// that delivered a brand-new nodeRef.
import type { Node } from '../apis/core.js';
import { isNotFound } from '../client/errors.js';
import type { KubeClient } from '../client/kube-client.js';
import { Nodes } from '../client/resources.js';

/** A node with only a name: the node does not exist. Any other read error is thrown. */
export async function lookupTargetNode(
  name: string,
  cached: (name: string) => Node | undefined,
  client: Pick<KubeClient, 'get'>,
  signal: AbortSignal,
): Promise<Node> {
  const hit = cached(name);
  if (hit) return hit;
  try {
    return await client.get(Nodes, { name }, { signal });
  } catch (err) {
    if (isNotFound(err)) return { metadata: { name } };
    throw err;
  }
}
