export { addNodeLinkController, NodeLinkControllerName, type NodeLinkControllerOptions } from './controller.js';
export { normalizeProviderID } from '../apis/provider-id.js';
export { NodeLinkOwnedAnnotation, type OwnedMetadata } from './owned-metadata.js';
export { desiredNode } from './node-metadata.js';
export { AmbiguousMatchError, findMachineForNode, findNodeForMachine } from './nodelink-reconciler.js';
