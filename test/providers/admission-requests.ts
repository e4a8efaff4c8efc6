// AdmissionReview requests for the providers' admission tests: a Machine or MachineSet wrapping a providerSpec,
// as kube-apiserver would send it, and the decoded JSON Patch of an answer.
import type { AdmissionInfrastructure, AdmissionRequest, AdmissionResponse, Secret } from '../../lib/index.js';
import { ApiError } from '../../lib/index.js';

export const NAMESPACE = 'openshift-machine-api';

export function infrastructure(
  platformType: string,
  platformStatus: Record<string, unknown> = {},
  architecture: 'amd64' | 'arm64' = 'amd64',
): AdmissionInfrastructure {
  return {
    clusterId: 'demo-x7k2p',
    platformType,
    platformStatus: { type: platformType, ...platformStatus },
    architecture,
  };
}

export function machineRequest(
  value: unknown,
  opts: { operation?: AdmissionRequest['operation']; labels?: Record<string, string> } = {},
): AdmissionRequest {
  return {
    uid: 'uid-m',
    kind: { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' },
    operation: opts.operation ?? 'CREATE',
    namespace: NAMESPACE,
    object: {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      metadata: {
        name: 'm',
        namespace: NAMESPACE,
        labels: { 'machine.openshift.io/cluster-api-cluster': 'demo-x7k2p', ...opts.labels },
      },
      spec: { providerSpec: { value } },
    } as never,
  };
}

export function machineSetRequest(
  value: unknown,
  opts: { operation?: AdmissionRequest['operation'] } = {},
): AdmissionRequest {
  return {
    uid: 'uid-ms',
    kind: { group: 'machine.openshift.io', version: 'v1beta1', kind: 'MachineSet' },
    operation: opts.operation ?? 'CREATE',
    namespace: NAMESPACE,
    object: {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'MachineSet',
      metadata: { name: 'ms', namespace: NAMESPACE },
      spec: {
        replicas: 1,
        selector: { matchLabels: { set: 'ms' } },
        template: { metadata: { labels: { set: 'ms' } }, spec: { providerSpec: { value } } },
      },
    } as never,
  };
}

export const patchOf = (res: AdmissionResponse): unknown =>
  res.patch ? JSON.parse(Buffer.from(res.patch, 'base64').toString('utf8')) : [];

/** A Secret reader holding these Secrets of NAMESPACE; any other is NotFound, as the API server answers. */
export function secretsNamed(...names: string[]) {
  return {
    get: ({ namespace, name }: { namespace?: string; name: string }): Promise<Secret> =>
      namespace === NAMESPACE && names.includes(name)
        ? Promise.resolve({ metadata: { name, namespace } } as Secret)
        : Promise.reject(
            new ApiError(404, {
              apiVersion: 'v1',
              kind: 'Status',
              status: 'Failure',
              code: 404,
              reason: 'NotFound',
              message: `secrets "${name}" not found`,
            } as never),
          ),
  };
}
