// The kubeconfig clients use to reach the control plane: https to loopback verified against the
// server's own certificate, a bearer token, and no default namespace in the context (like an admin
// kubeconfig). Without a CA (a plain http server) it falls back to insecure-skip-tls-verify, which
// @kubernetes/client-node requires for http:// servers.
import { chmod, writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';

export function buildKubeconfig(server: string, token: string, caPem?: string): string {
  const cluster = caPem
    ? { server, 'certificate-authority-data': Buffer.from(caPem, 'utf8').toString('base64') }
    : { server, 'insecure-skip-tls-verify': true };
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'machine-api-envtest', cluster }],
    users: [{ name: 'machine-api-envtest', user: { token } }],
    contexts: [
      { name: 'machine-api-envtest', context: { cluster: 'machine-api-envtest', user: 'machine-api-envtest' } },
    ],
    'current-context': 'machine-api-envtest',
    preferences: {},
  });
}

/** Writes the kubeconfig readable by the owner only (it holds the token). */
export async function writeKubeconfig(path: string, yaml: string): Promise<void> {
  await writeFile(path, yaml, { mode: 0o600 });
  await chmod(path, 0o600);
}
