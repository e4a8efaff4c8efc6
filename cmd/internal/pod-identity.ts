// What the operator tells the provider container about itself through its environment: the release the
// Deployment belongs to (RELEASE_VERSION, copied from the operator's own) and the Node the pod runs on
// (NODE_NAME, from the downward API). The reference binaries receive both and act on neither; ours log them in
// their start line, so a log or a support bundle says which release and which Node it came from.

export interface PodIdentity {
  /** "unknown" when unset, the word the operator uses for a missing RELEASE_VERSION. */
  releaseVersion: string;
  /** "(unknown)" outside a pod. */
  node: string;
}

export function podIdentity(env: NodeJS.ProcessEnv): PodIdentity {
  return { releaseVersion: env.RELEASE_VERSION || 'unknown', node: env.NODE_NAME || '(unknown)' };
}
