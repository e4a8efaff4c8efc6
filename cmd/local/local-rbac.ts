// `--rbac`: the local control plane authorizes every request with RBAC, the operator's RBAC manifests are
// applied as a cluster has them, and each controller binary talks to the API server as the ServiceAccount its
// Deployment runs it as, with a token minted for that account. A right missing from the manifests then fails
// that controller's request with a 403 in its log, as it would on a cluster.
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  defineResource,
  isAlreadyExists,
  isNotFound,
  Namespaces,
  type KubeClient,
  type KubeObject,
  type Resource,
} from '../../lib/index.js';
import { buildKubeconfig, type ControlPlane } from '../../sim/apiserver/index.js';

const rbac = (plural: string, kind: string, namespaced: boolean) =>
  defineResource<KubeObject>({ group: 'rbac.authorization.k8s.io', version: 'v1', plural, kind, namespaced });

const resourcesByKind: Record<string, Resource> = {
  ServiceAccount: defineResource<KubeObject>({
    group: '',
    version: 'v1',
    plural: 'serviceaccounts',
    kind: 'ServiceAccount',
    namespaced: true,
  }),
  ClusterRole: rbac('clusterroles', 'ClusterRole', false),
  Role: rbac('roles', 'Role', true),
  ClusterRoleBinding: rbac('clusterrolebindings', 'ClusterRoleBinding', false),
  RoleBinding: rbac('rolebindings', 'RoleBinding', true),
};

export class RbacManifestError extends Error {
  override readonly name = 'RbacManifestError';
}

/** Every document of every .yaml file of the directories, in file-name order; only RBAC kinds and ServiceAccounts. */
export function readRbacManifests(dirs: string[]): KubeObject[] {
  const out: KubeObject[] = [];
  for (const dir of dirs) {
    for (const name of readdirSync(dir)
      .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
      .sort()) {
      const file = join(dir, name);
      for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
        if (doc.errors.length > 0) throw new RbacManifestError(`${file}: ${doc.errors[0]!.message}`);
        const object = doc.toJS() as KubeObject | null;
        if (object === null) continue;
        if (!object.kind || !resourcesByKind[object.kind]) {
          throw new RbacManifestError(
            `${file}: kind ${JSON.stringify(object.kind)} is not an RBAC kind (${Object.keys(resourcesByKind).join(', ')})`,
          );
        }
        out.push(object);
      }
    }
  }
  return out;
}

/**
 * Creates each object, or replaces the stored one with it (what the operator's sync does): the manifests
 * decide, so a right removed from them since the last start is gone from the cluster too.
 */
export async function applyRbacManifests(client: KubeClient, objects: KubeObject[]): Promise<string[]> {
  const applied: string[] = [];
  // The namespaces they live in exist on a cluster (openshift-config-managed, say): here they may not yet.
  for (const namespace of new Set(objects.map((o) => o.metadata.namespace).filter((n): n is string => !!n))) {
    try {
      await client.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
  for (const object of objects) {
    const resource = resourcesByKind[object.kind ?? '']!;
    const key = { namespace: object.metadata.namespace, name: object.metadata.name ?? '' };
    try {
      const existing = await client.get(resource, key);
      await client.update(resource, {
        ...structuredClone(object),
        metadata: { ...object.metadata, resourceVersion: existing.metadata.resourceVersion },
      });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await client.create(resource, structuredClone(object));
    }
    applied.push(`${object.kind ?? ''}/${key.name}`);
  }
  return applied;
}

/** The ServiceAccount a Deployment's pods run as (spec.template.spec.serviceAccountName). */
export function deploymentServiceAccount(file: string): { namespace: string; name: string } {
  const deployment = parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as Record<string, unknown> | null)
    .find((o) => o?.kind === 'Deployment') as
    { metadata?: { namespace?: string }; spec?: { template?: { spec?: { serviceAccountName?: string } } } } | undefined;
  const name = deployment?.spec?.template?.spec?.serviceAccountName;
  const namespace = deployment?.metadata?.namespace;
  if (!name || !namespace)
    throw new RbacManifestError(
      `${file}: no Deployment with metadata.namespace and spec.template.spec.serviceAccountName`,
    );
  return { namespace, name };
}

/**
 * A kubeconfig (mode 0600, under <stateDir>/serviceaccounts/) that authenticates as the ServiceAccount with a
 * freshly minted token. Minted on every start: the control plane's signing key changes with its token.
 */
export function writeServiceAccountKubeconfig(
  stateDir: string,
  controlPlane: ControlPlane,
  sa: { namespace: string; name: string },
): string {
  const dir = join(stateDir, 'serviceaccounts');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${sa.namespace}.${sa.name}.kubeconfig`);
  writeFileSync(
    path,
    buildKubeconfig(
      controlPlane.httpsUrl,
      controlPlane.serviceAccountToken(sa.namespace, sa.name),
      controlPlane.caCert,
    ),
    { mode: 0o600 },
  );
  return path;
}
