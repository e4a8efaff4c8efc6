// Where the leader-election Lease lives. As controller-runtime decides it: the explicit flag, else the
// namespace of the pod's service account; out of a cluster (no namespace file) there is no safe guess, so the
// binary refuses to start. Guessing (say --namespace, or openshift-machine-api) would let two copies of a
// controller started with different flags each hold "the" lease in a different namespace and both lead.
import { readFileSync } from 'node:fs';

/** The file the kubelet mounts into every pod with its service account's namespace. */
export const SERVICE_ACCOUNT_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** Leader election is on, no --leader-elect-resource-namespace was given and the in-cluster namespace file is absent or empty. */
export class LeaderElectionNamespaceError extends Error {
  override readonly name = 'LeaderElectionNamespaceError';
  constructor(
    readonly namespaceFile: string,
    detail: string,
  ) {
    super(
      `unable to find leader election namespace: not running in-cluster (${detail}), ` +
        'please specify --leader-elect-resource-namespace (or run with --leader-elect=false)',
    );
  }
}

/** `--leader-elect-resource-namespace`, else the service account namespace read from `namespaceFile`. */
export function leaderElectionNamespace(
  flagValue: string,
  namespaceFile: string = SERVICE_ACCOUNT_NAMESPACE_FILE,
): string {
  if (flagValue) return flagValue;
  let content: string;
  try {
    content = readFileSync(namespaceFile, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new LeaderElectionNamespaceError(
      namespaceFile,
      code === 'ENOENT' ? `${namespaceFile} does not exist` : `${namespaceFile} is unreadable: ${code ?? String(err)}`,
    );
  }
  const ns = content.trim();
  if (!ns) throw new LeaderElectionNamespaceError(namespaceFile, `${namespaceFile} is empty`);
  return ns;
}
