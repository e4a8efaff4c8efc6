// Where the API server is and how to authenticate: a kubeconfig file or YAML, else in-cluster.
import { KubeConfig } from '@kubernetes/client-node';

export interface LoadKubeConfigOptions {
  kubeconfigPath?: string;
  yaml?: string;
  /** Overrides the kubeconfig's current-context. */
  context?: string;
}

export function loadKubeConfig(opts: LoadKubeConfigOptions = {}): KubeConfig {
  const kc = new KubeConfig();
  if (opts.yaml !== undefined) kc.loadFromString(opts.yaml);
  else if (opts.kubeconfigPath) kc.loadFromFile(opts.kubeconfigPath);
  else kc.loadFromCluster();
  if (opts.context) kc.setCurrentContext(opts.context);
  if (!kc.getCurrentCluster()) {
    throw new Error(`kubeconfig: current context ${JSON.stringify(kc.getCurrentContext())} names no cluster`);
  }
  return kc;
}

/** A KubeConfig for one server and bearer token (plain http needs skipTLSVerify in @kubernetes/client-node). */
export function kubeConfigFor(server: string, token?: string, namespace?: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'cluster', server, skipTLSVerify: server.startsWith('http://') }],
    users: [{ name: 'user', token }],
    contexts: [{ name: 'context', cluster: 'cluster', user: 'user', namespace }],
    currentContext: 'context',
  });
  return kc;
}
