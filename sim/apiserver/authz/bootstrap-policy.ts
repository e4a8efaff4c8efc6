// The roles and bindings kube-apiserver creates at start when RBAC is on, so that any authenticated user
// (a ServiceAccount, say) may use discovery, health and version endpoints and ask what it may do, and
// system:masters holds cluster-admin, as on a cluster.
import type { RbacBinding, RbacRole } from './rbac-authorizer.js';

const metadata = (name: string) => ({
  name,
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
});

const group = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name });

export const BootstrapClusterRoles: RbacRole[] = [
  {
    metadata: metadata('cluster-admin'),
    rules: [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ],
  },
  {
    metadata: metadata('system:discovery'),
    rules: [
      {
        nonResourceURLs: [
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
          '/healthz',
          '/livez',
          '/openapi',
          '/openapi/*',
          '/readyz',
          '/version',
          '/version/',
        ],
        verbs: ['get'],
      },
    ],
  },
  {
    metadata: metadata('system:basic-user'),
    rules: [
      {
        apiGroups: ['authorization.k8s.io'],
        resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
        verbs: ['create'],
      },
      { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
    ],
  },
  {
    metadata: metadata('system:public-info-viewer'),
    rules: [{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }],
  },
];

const binding = (role: string, ...groups: string[]): RbacBinding => ({
  metadata: metadata(role),
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
  subjects: groups.map(group),
});

export const BootstrapClusterRoleBindings: RbacBinding[] = [
  binding('cluster-admin', 'system:masters'),
  binding('system:discovery', 'system:authenticated'),
  binding('system:basic-user', 'system:authenticated'),
  binding('system:public-info-viewer', 'system:authenticated', 'system:unauthenticated'),
];
