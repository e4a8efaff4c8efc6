// The last step of a Machine's deletion: its Node goes too, but only the Node that is provably this Machine's.
import type { Node } from '../apis/core.js';
import type { Machine } from '../apis/machine-types.js';
import { isNodeOfMachine } from '../apis/node-identity.js';
import { isConflict, isNotFound } from '../client/errors.js';
import type { KubeClient } from '../client/kube-client.js';
import { Nodes } from '../client/resources.js';
import type { Logger } from '../base/logger.js';

/**
 * Deletes the Node that status.nodeRef names, but only when it is provably this Machine's Node
 * (isNodeOfMachine). The reference deletes by name; once the instance is gone its private IP, and so the
 * Node name, may already belong to a new Machine's instance, whose healthy Node that would delete. The uid
 * precondition covers a Node replaced between the read and the delete: that one is not ours either.
 */
export async function deleteOwnNode(
  client: KubeClient,
  machine: Machine,
  name: string,
  log: Logger,
  signal: AbortSignal,
): Promise<void> {
  let node: Node;
  try {
    node = await client.get(Nodes, { name }, { signal });
  } catch (err) {
    if (isNotFound(err)) return;
    throw err;
  }
  if (!isNodeOfMachine(node, machine)) {
    log.info("leaving the node in place: it is not this machine's", {
      node: name,
      nodeProviderID: node.spec?.providerID ?? '',
      machineProviderID: machine.spec?.providerID ?? '',
    });
    return;
  }
  try {
    await client.delete(Nodes, { name }, { signal, preconditions: { uid: node.metadata.uid } });
  } catch (err) {
    if (isNotFound(err)) return;
    if (isConflict(err)) {
      log.info("leaving the node in place: it was replaced by another machine's node", { node: name });
      return;
    }
    throw err;
  }
}
