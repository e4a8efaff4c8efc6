// The simulation's names in the per-process metrics (cpuSeconds, peakRssMb, peakHeapUsedMb): measured beside the
// controllers, but not held to a controller's targets (RSS, heap share), which are the Deployment's.

/** machine-api-envtest, the control plane in its own process. */
export const CONTROL_PLANE = 'control-plane';

/** The bench process itself: the cloud emulator and the kubelet simulator share it, so they are one figure. */
export const SIMULATION_CPU = 'emulator+kubelet';

export const SIMULATION_PARTS: ReadonlySet<string> = new Set([SIMULATION_CPU, CONTROL_PLANE]);
