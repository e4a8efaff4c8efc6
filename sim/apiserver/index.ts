// The local control plane (a Kubernetes API server emulator) for tests, the embedded default and
// provider teams: startControlPlane() in process, or the machine-api-envtest binary.
//
//   const cp = await startControlPlane({ kubeconfigPath: '/tmp/kubeconfig' });   // CRDs from manifests/crds
//   const kc = new KubeConfig(); kc.loadFromString(cp.kubeconfig);              // in-process: plain http
//   // kubectl --kubeconfig /tmp/kubeconfig get machines -A                     // the file: https + CA
//   await cp.stop();
export { startControlPlane, defaultCrdDir } from './control-plane.js';
export type { ControlPlane, ControlPlaneOptions } from './control-plane.js';
export type { RecordedRequest } from './server.js';
export { buildKubeconfig } from './kubeconfig.js';
export { CRDLoadError, loadCrdDirs, type LoadedCRD } from './crd-loader.js';
// What loadCrdDirs returns, down to the schema types it holds.
export type { CRDObject, CRDVersion } from './crd.js';
export type { PrinterColumn } from './printer-column.js';
export type { ScaleSubresource } from './resource-type.js';
export type { JSONSchemaProps } from './schema/index.js';
export { SnapshotError, StorageError } from './persistence/storage-error.js';
export { generateServingCert, type ServingCert, type ServingCertOptions } from './tls-cert.js';
export type { WebhookServiceResolver } from './webhooks/webhook-client.js';
