// The local control plane (a Kubernetes API server emulator) for tests, the embedded default and
// provider teams: startControlPlane() in process, or the machine-api-envtest binary.
export { startControlPlane, defaultCrdDir } from './control-plane.js';
export type { ControlPlane, ControlPlaneOptions } from './control-plane.js';
export { buildKubeconfig } from './kubeconfig.js';
export { CRDLoadError, loadCrdDirs } from './crd-loader.js';
export { SnapshotError } from './persistence.js';
