// The local control plane: wires the store, registry, controllers (CRDs, garbage collection, namespace
// deletion), optional persistence and the HTTP server, and hands out a kubeconfig for it.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdminOnlyAuthorizer } from './authz/admin-only-authorizer.js';
import { Authenticator } from './authz/authenticator.js';
import { BootstrapClusterRoleBindings, BootstrapClusterRoles } from './authz/bootstrap-policy.js';
import { RbacAuthorizer } from './authz/rbac-authorizer.js';
import { ServiceAccountTokens } from './authz/service-account-tokens.js';
import { storedRbacObjects } from './authz/stored-rbac-objects.js';
import { CRDGroup, CRDPlural, RbacGroup } from './builtin-types.js';
import { CRDController } from './crd-controller.js';
import { CRDLoadError, loadCrdDirs } from './crd-loader.js';
import { GarbageCollector } from './gc.js';
import { deepEqual } from './json.js';
import { buildKubeconfig, writeKubeconfig } from './kubeconfig.js';
import { NamespaceController } from './namespace-controller.js';
import { PDBStatusController } from './pdb-controller.js';
import { ObjectApi } from './object-api.js';
import { Journal } from './persistence/journal.js';
import { TypeRegistry } from './registry.js';
import { createRequestListener, type RecordedRequest } from './server.js';
import { immediateCommits } from './storage/commit-gate.js';
import { Store } from './storage/store.js';
import { WatchHub } from './watch/watch-hub.js';
import { goneStatus } from './handlers/watch.js';
import { generateServingCert } from './tls-cert.js';
import { createDualServer } from './dual-protocol.js';
import { AdmittedWrites } from './webhooks/admitted-writes.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { serviceResolver } from './webhooks/service-resolver.js';
import type { WebhookServiceResolver } from './webhooks/webhook-client.js';

export interface ControlPlaneOptions {
  /** TCP port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** Directories of CRD manifests; default <repo>/manifests/crds when it exists. */
  crdDirs?: string[];
  /** Keep objects across restarts in this directory. */
  dataDir?: string;
  /** The bearer token clients must send; random when unset. */
  token?: string;
  /** Also write the kubeconfig here (mode 0600). */
  kubeconfigPath?: string;
  /** Change events kept per resource type for watch resumption (default 10,000). */
  watchHistoryLimit?: number;
  /**
   * Bytes of change events kept for watch resumption, all types together (default 256 MiB); the oldest
   * go first, and a watch from before them gets 410 Gone.
   */
  watchHistoryBytes?: number;
  /** With dataDir: compact the write-ahead log into a snapshot once it holds this many bytes (default 64 MiB). */
  compactLogAfterBytes?: number;
  /** Told what start-up had to ignore in dataDir (a log tail torn by a crash) and about failed compactions. */
  onStorageWarning?: (message: string) => void;
  /** Largest request body accepted (default 3 MiB, like kube-apiserver). */
  maxBodyBytes?: number;
  /** How often watches that allow bookmarks get one (default 60 s). */
  bookmarkIntervalMs?: number;
  /** Time source for timestamps (default Date.now). */
  now?: () => number;
  /** Called for every resource request (verb, group, resource, subresource, namespace, user agent). */
  onRequest?: (request: RecordedRequest) => void;
  /**
   * Where webhooks addressed by `clientConfig.service` listen, as kube-apiserver reaches a Service:
   * a map from "namespace/name" (or "namespace/name:port", which wins) to a loopback "host:port" or URL
   * base "https://host:port", or a function. A Map is read at call time, so entries can come later.
   * Service names are never looked up in DNS; an unknown Service is a failed webhook call.
   */
  webhookServiceResolver?: WebhookServiceResolver | ReadonlyMap<string, string> | Record<string, string>;
  /**
   * Told about each webhook call that failed under failurePolicy Ignore (the request went on without it),
   * with kube-apiserver's "failed calling webhook" message. Default: a line on stderr.
   */
  onWebhookFailedOpen?: (webhook: string, message: string) => void;
  /**
   * Authorize every request with RBAC (Roles, ClusterRoles and their bindings, as stored), as kube-apiserver
   * does, and create kube's bootstrap roles (cluster-admin, system:discovery, system:basic-user, ...).
   * Default false: only the control plane's own user (system:masters) is served, and may do everything.
   * Either way the token's user may do everything.
   */
  rbac?: boolean;
  /** Told about every request refused by authorization (403), with kube's message naming the user and the right. */
  onForbidden?: (message: string) => void;
}

export interface ControlPlane {
  /**
   * http://127.0.0.1:<port>, for in-process clients (@kubernetes/client-node needs skipTLSVerify for http).
   * The same port also speaks TLS: see httpsUrl.
   */
  url: string;
  /** https://127.0.0.1:<port>: what kubectl needs (client-go sends a bearer token only over TLS). */
  httpsUrl: string;
  /** PEM of the server's self-signed certificate (kubectlKubeconfig carries it as certificate-authority-data). */
  caCert: string;
  token: string;
  /** Kubeconfig YAML for in-process clients: plain http to url, insecure-skip-tls-verify, the token. */
  kubeconfig: string;
  /** Kubeconfig YAML for kubectl and other client-go tools: https to httpsUrl, verified with caCert. */
  kubectlKubeconfig: string;
  /** Where kubectlKubeconfig was written (mode 0600), when asked to. */
  kubeconfigPath?: string;
  stop(): Promise<void>;
  /** Forgets all watch history: watches from an older resourceVersion get 410 Gone. */
  compactHistory(): void;
  /** Closes every open watch stream (clients must re-watch). */
  dropWatches(): void;
  /** Sends every open watch an in-stream ERROR 410 (Expired) and closes it: clients must re-list. */
  expireWatches(): void;
  /** e.g. {"get machines": 12, "patch machines/status": 3, "watch nodes": 1} */
  requestCounts(): Record<string, number>;
  resetRequestCounts(): void;
  openWatchCount(): number;
  /**
   * A bearer token for the ServiceAccount (which must exist), as a TokenRequest would return: the request
   * acts as `system:serviceaccount:<namespace>:<name>`. Valid while the account exists, across restarts
   * that keep the control plane's token.
   */
  serviceAccountToken(namespace: string, name: string): string;
}

const defaultNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** <repo>/manifests/crds, found by walking up from this module (works from lib/, dist/lib/ and .tmp/compiled/<hash>/lib/). */
export function defaultCrdDir(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, 'manifests', 'crds');
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return undefined;
}

export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const now = opts.now ?? Date.now;
  const maxBodyBytes = opts.maxBodyBytes ?? 3 * 1024 * 1024;
  const token = opts.token ?? randomBytes(24).toString('base64url');
  const store = new Store(opts.watchHistoryLimit ?? 10_000, 0, opts.watchHistoryBytes ?? 256 * 1024 * 1024);
  const registry = new TypeRegistry();
  const hub = new WatchHub();
  const api = new ObjectApi(store, registry, now);

  // The journal loads the data directory and must be the store's first listener, so that changes made
  // by other listeners (a CRD's deletion removing its objects) are logged after the change that caused them.
  const journal = opts.dataDir
    ? Journal.open(store, opts.dataDir, {
        compactAfterBytes: opts.compactLogAfterBytes,
        onWarning: opts.onStorageWarning,
      })
    : undefined;
  const commits = journal ?? immediateCommits(store);
  const writes = new AdmittedWrites(
    api,
    new WebhookDispatcher(store, {
      resolveService: serviceResolver(opts.webhookServiceResolver),
      onFailedOpen:
        opts.onWebhookFailedOpen ??
        ((_webhook, message) => process.stderr.write(`machine-api-envtest: failing open: ${message}\n`)),
    }),
  );
  const crds = new CRDController(store, registry, hub);
  crds.syncAll();
  if (journal) journal.onDurable((ev) => hub.dispatch(ev));
  else store.onEvent((ev) => hub.dispatch(ev));
  const gc = new GarbageCollector(api, registry);
  const namespaces = new NamespaceController(api, registry);
  const pdbs = new PDBStatusController(api, registry);

  const nsType = registry.byTypeKey('/namespaces');
  for (const ns of defaultNamespaces) {
    if (nsType && !api.find(nsType, '', ns)) api.create(nsType, 'v1', '', { metadata: { name: ns } });
  }
  installCrds(api, registry, opts.crdDirs ?? [defaultCrdDir()].filter((d) => d !== undefined));
  if (opts.rbac) installBootstrapPolicy(api, registry);

  const serviceAccountTokens = new ServiceAccountTokens(token);
  const serviceAccounts = registry.byTypeKey('/serviceaccounts');
  const authenticator = new Authenticator({
    adminToken: token,
    serviceAccountTokens,
    serviceAccountUid: (sa) =>
      serviceAccounts ? api.find(serviceAccounts, sa.namespace, sa.name)?.metadata.uid : undefined,
  });
  const authorizer = opts.rbac ? new RbacAuthorizer(storedRbacObjects(store)) : new AdminOnlyAuthorizer();

  const counts = new Map<string, number>();
  let address = '127.0.0.1:0';
  const cert = generateServingCert();
  const server = createDualServer(
    createRequestListener({
      authenticator,
      authorizer,
      serviceAccountTokens,
      registry,
      api,
      writes,
      watch: {
        store,
        hub,
        bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000,
        maxBufferedBytes: 64 * 1024 * 1024,
        commits,
      },
      now,
      maxBodyBytes,
      serverAddress: () => address,
      counts,
      commits,
      onRequest: opts.onRequest,
      onForbidden: opts.onForbidden,
    }),
    { key: cert.keyPem, cert: cert.certPem },
  );
  const port = await server.listen(opts.port ?? 0, '127.0.0.1');
  address = `127.0.0.1:${port}`;
  const url = `http://${address}`;
  const httpsUrl = `https://${address}`;
  const kubeconfig = buildKubeconfig(url, token);
  const kubectlKubeconfig = buildKubeconfig(httpsUrl, token, cert.certPem);
  const kubeconfigPath = opts.kubeconfigPath ? resolve(opts.kubeconfigPath) : undefined;
  if (kubeconfigPath) await writeKubeconfig(kubeconfigPath, kubectlKubeconfig);

  let stopping: Promise<void> | undefined;
  return {
    url,
    httpsUrl,
    caCert: cert.certPem,
    token,
    kubeconfig,
    kubectlKubeconfig,
    kubeconfigPath,
    stop() {
      stopping ??= (async () => {
        hub.closeAll();
        gc.stop();
        namespaces.stop();
        pdbs.stop();
        await server.close();
        await journal?.close();
      })();
      return stopping;
    },
    compactHistory: () => store.compactHistory(),
    dropWatches: () => hub.closeAll(),
    expireWatches: () =>
      hub.closeAll(goneStatus(`too old resource version: the history before ${store.currentRv()} was compacted`)),
    requestCounts: () => Object.fromEntries(counts),
    resetRequestCounts: () => counts.clear(),
    openWatchCount: () => hub.count(),
    serviceAccountToken(namespace, name) {
      const sa = serviceAccounts ? api.get(serviceAccounts, namespace, name) : undefined;
      return serviceAccountTokens.mint({ namespace, name, uid: sa?.metadata.uid ?? '' }, now());
    },
  };
}

/** kube-apiserver's bootstrap ClusterRoles and ClusterRoleBindings, created when absent. */
function installBootstrapPolicy(api: ObjectApi, registry: TypeRegistry): void {
  const kinds = [
    { plural: 'clusterroles', kind: 'ClusterRole', objects: BootstrapClusterRoles },
    { plural: 'clusterrolebindings', kind: 'ClusterRoleBinding', objects: BootstrapClusterRoleBindings },
  ];
  for (const { plural, kind, objects } of kinds) {
    const type = registry.byTypeKey(`${RbacGroup}/${plural}`);
    if (!type) continue;
    for (const o of objects) {
      if (!api.find(type, '', o.metadata.name))
        api.create(type, 'v1', '', { apiVersion: `${RbacGroup}/v1`, kind, ...structuredClone(o) });
    }
  }
}

/** Creates the CRDs from the directories, or updates those whose spec differs from the stored one. */
function installCrds(api: ObjectApi, registry: TypeRegistry, dirs: string[]): void {
  const crdType = registry.byTypeKey(`${CRDGroup}/${CRDPlural}`);
  if (!crdType) return;
  for (const { file, crd } of loadCrdDirs(dirs)) {
    try {
      const existing = api.find(crdType, '', crd.metadata?.name ?? '');
      if (!existing) {
        api.create(crdType, 'v1', '', crd);
      } else if (!deepEqual(existing.spec, crd.spec)) {
        api.writePatched(crdType, 'v1', existing, { ...existing, spec: crd.spec }, undefined);
      }
    } catch (err) {
      throw new CRDLoadError(
        `${file}: CustomResourceDefinition ${crd.metadata?.name ?? '(unnamed)'}: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }
}
