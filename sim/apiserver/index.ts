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
export { CRDLoadError, loadCrdDirs } from './crd-loader.js';
export { SnapshotError, StorageError } from './persistence/storage-error.js';
export { generateServingCert, type ServingCert, type ServingCertOptions } from './tls-cert.js';
export type { WebhookServiceResolver } from './webhooks/webhook-client.js';
