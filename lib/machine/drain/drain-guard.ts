// Control-plane drain guard: never cordon a second control-plane node while another one is cordoned,
// so that a rolling replacement cannot take etcd quorum down.
import { ControlPlaneNodeRoleLabels } from '../../apis/constants.js';
import type { Node } from '../../apis/core.js';

export const isControlPlaneNode = (n: Node): boolean =>
  ControlPlaneNodeRoleLabels.some((l) => n.metadata.labels?.[l] !== undefined);

export type DrainPermission = { allowed: true } | { allowed: false; reason: string };

export function drainPermission(node: Node, allNodes: Node[]): DrainPermission {
  // Resuming a drain that already cordoned this node.
  if (node.spec?.unschedulable) return { allowed: true };
  if (!isControlPlaneNode(node)) return { allowed: true };
  const cordoned = allNodes.filter(
    (n) => n.metadata.name !== node.metadata.name && isControlPlaneNode(n) && n.spec?.unschedulable,
  );
  if (cordoned.length === 0) return { allowed: true };
  return {
    allowed: false,
    reason: `control plane node ${cordoned.map((n) => `"${n.metadata.name}"`).join(', ')} is already cordoned`,
  };
}
