// The embedded default, as a library: a local control plane, one cloud emulator, the kubelet simulator and
// (unless told otherwise) every controller binary of the provider, each as its own process (what `npm start`
// does) or all in this process through the binaries' own flag parsing and registration code (what tests use).
// machine-api-local is a thin CLI over this.
import { mkdirSync, createWriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  createKubeClient,
  createLogger,
  Namespaces,
  isAlreadyExists,
  loadKubeConfig,
  type KubeClient,
  type Logger,
} from '../../lib/index.js';
import { startControlPlane, type ControlPlane, type RecordedRequest } from '../../sim/apiserver/index.js';
import { KubeletSimulator, startAdminServer } from '../../sim/kit/index.js';
import { machineSetControllerBinary } from '../machineset-controller.js';
import type { PrepareOptions } from './local-binary.js';
import {
  ensureInfrastructure,
  localServingCert,
  registerWebhookConfigurations,
  waitForListening,
  WEBHOOK_SERVICE,
} from './local-admission.js';
import { choosePort, freeLoopbackPorts } from './preferred-port.js';
import type { BinaryProcesses } from './binary-processes.js';
import {
  binariesOf,
  LOCAL_NAMESPACE,
  startControllerBinaries,
  type BinaryCommand,
  type ControllersMode,
  type RunningBinary,
} from './controller-binaries.js';
import {
  applyRbacManifests,
  deploymentServiceAccount,
  readRbacManifests,
  writeServiceAccountKubeconfig,
} from './local-rbac.js';
import { localProvider, localProviders, type LocalCloud, type LocalProvider } from './providers.js';
import { repoRoot } from './repo-root.js';
import { createIfAbsent, readSampleFile, readSamples } from './samples.js';
import { LocalTerminationHandlers } from './termination-handlers.js';
import { lockStateDir } from './state-dir-lock.js';
import {
  checkStateDirProvider,
  readStateDirRecord,
  writeFileAtomically,
  writeStateDirRecord,
  type StateDirRecord,
} from './state-dir-record.js';

export const LOCAL_USER_AGENT = 'machine-api-local';

export interface LocalEnvironmentOptions {
  /** Default "aws". */
  provider?: string;
  /** API server port on 127.0.0.1; 0 picks a free one; default the previous run's port when free, else a free one. */
  port?: number;
  /** Kubeconfig, endpoints.json, API objects and emulator instances live here. */
  stateDir: string;
  /** Default 3000. */
  bootDelayMs?: number;
  /** Default 1000. */
  terminateDelayMs?: number;
  /** Default 0. */
  latencyMs?: number;
  /** Create the sample MachineSet and MachineHealthCheck (default true). Secrets are always created. */
  samples?: boolean;
  /** Default in-process. */
  controllers?: ControllersMode;
  /** Run the binaries with leader election on their own Leases (default false: one process, no contention). */
  leaderElect?: boolean;
  /** Controllers' -v. */
  verbosity?: number;
  /** Where controller and environment logs go; default <stateDir>/controllers.log. */
  logStream?: NodeJS.WritableStream;
  /** Sees every API request (the RBAC test records who calls what). */
  onRequest?: (request: RecordedRequest) => void;
  /** The environment the binaries see (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Machine controller settings for in-process controllers (tests model a controller slow to notice a termination). */
  machineController?: PrepareOptions['machineController'];
  /**
   * Authorize every API request with RBAC, apply the RBAC manifests (`rbacManifestDirs`) and run the binaries as
   * the ServiceAccount of the provider's Deployment (default false: they use the administrator's kubeconfig).
   */
  rbac?: boolean;
  /** The RBAC manifests `rbac` applies; default <repo>/manifests/rbac. */
  rbacManifestDirs?: string[];
  /** Serve each binary's profiling endpoints (--enable-pprof) on a loopback port of its own, listed in endpoints.json "pprof". */
  pprof?: boolean;
}

export interface Endpoints {
  apiServer: string;
  kubeconfig: string;
  /** With rbac: the kubeconfig of the ServiceAccount the binaries run as. */
  serviceAccountKubeconfig?: string;
  provider: string;
  /** Per provider: endpoint and region, plus the provider's extraEndpoints (e.g. ibmcloud's iamEndpoint). */
  cloud: Record<string, { endpoint: string; region: string } & Record<string, string>>;
  /** How to run each binary as its own process against this environment. */
  binaries: BinaryCommand[];
  /** With pprof: per binary, the base URL of its profiling endpoints (…/debug/pprof/profile, …/heap). */
  pprof?: Record<string, string>;
  /** Unless controllers 'none': per binary, the URL of its Prometheus /metrics. */
  metrics?: Record<string, string>;
  /** Unless controllers 'none': per binary, the base URL of its /healthz and /readyz. */
  health?: Record<string, string>;
}

const urlsOf = <T>(ports: Record<string, T>, url: (port: T) => string): Record<string, string> =>
  Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, url(port)]));

export interface LocalEnvironment {
  provider: LocalProvider;
  controlPlane: ControlPlane;
  cloud: LocalCloud;
  kubelet: KubeletSimulator;
  /** The environment's own client (user agent machine-api-local). */
  client: KubeClient;
  kubeconfigPath: string;
  endpointsPath: string;
  endpoints: Endpoints;
  binaries: RunningBinary[];
  /** With controllers 'processes': the supervised child processes. */
  processes?: BinaryProcesses;
  /** Sample objects created by this start (empty when they already existed). */
  createdSamples: string[];
  logger: Logger;
  /** Stops controllers, kubelet simulator, emulator and control plane, in that order. Idempotent. */
  stop(): Promise<void>;
}

export async function startLocalEnvironment(opts: LocalEnvironmentOptions): Promise<LocalEnvironment> {
  const provider = localProvider(opts.provider ?? 'aws');
  const stateDir = resolve(opts.stateDir);
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  // Before anything in the directory is read or written: one run per directory, one provider per directory.
  const lock = lockStateDir(stateDir, { provider: provider.name });
  process.on('exit', lock.release);
  const releaseLock = () => {
    process.off('exit', lock.release);
    lock.release();
  };
  let record: StateDirRecord | undefined;
  try {
    record = readStateDirRecord(stateDir, Object.keys(localProviders));
    checkStateDirProvider(opts.stateDir, record, provider.name);
    writeStateDirRecord(stateDir, { provider: provider.name, ports: record?.ports });
  } catch (err) {
    releaseLock();
    throw err;
  }
  const root = repoRoot();
  const ownLog = opts.logStream
    ? undefined
    : createWriteStream(join(stateDir, 'controllers.log'), { flags: 'a', mode: 0o600 });
  const logStream = opts.logStream ?? ownLog!;
  const logger = createLogger({
    level: opts.verbosity ?? 0,
    stream: logStream,
    fields: { component: LOCAL_USER_AGENT },
  });
  const kubeconfigPath = join(stateDir, 'kubeconfig');
  const endpointsPath = join(stateDir, 'endpoints.json');
  const leaderElect = opts.leaderElect ?? false;
  const verbosity = opts.verbosity ?? 0;

  // Each step registers how to undo itself, so a failed start leaves nothing running.
  const undo: Array<() => Promise<void> | void> = [releaseLock];
  if (ownLog) undo.push(() => new Promise<void>((resolve) => ownLog.end(() => resolve())));
  const unwind = async (): Promise<void> => {
    for (const step of undo.splice(0).reverse()) {
      try {
        await step();
      } catch (err) {
        logger.error('stopping the local environment', { error: err });
      }
    }
  };

  try {
    const webhookServices = new Map<string, string>();
    const controlPlane = await startControlPlane({
      port: await choosePort(opts.port, record?.ports?.apiServer),
      dataDir: join(stateDir, 'apiserver'),
      kubeconfigPath,
      crdDirs: [join(root, 'manifests', 'crds'), join(root, 'cmd', 'local', 'crds')],
      onRequest: opts.onRequest,
      webhookServiceResolver: webhookServices,
      onWebhookFailedOpen: (webhook, message) =>
        logger.info('webhook skipped (failurePolicy Ignore)', { webhook, message }),
      rbac: opts.rbac ?? false,
      // Loud in the log whoever asked: a controller may retry a refused call quietly.
      onForbidden: (message) => logger.error('API request forbidden', { message }),
    });
    undo.push(() => controlPlane.stop());
    const client = createKubeClient({
      kubeConfig: loadKubeConfig({ yaml: controlPlane.kubeconfig }),
      qps: 200,
      burst: 400,
      userAgent: LOCAL_USER_AGENT,
    });
    undo.push(() => client.close());

    const cloud = await provider.startEmulator({
      dataDir: join(stateDir, `${provider.name}-emulator`),
      bootDelayMs: opts.bootDelayMs ?? 3_000,
      terminateDelayMs: opts.terminateDelayMs ?? 1_000,
      latencyMs: opts.latencyMs ?? 0,
      port: await choosePort(undefined, record?.ports?.cloud),
      logger: logger.child({ emulator: provider.name }),
    });
    undo.push(() => cloud.stop());
    const admin = await startAdminServer({
      routes: cloud.adminRoutes,
      port: await choosePort(undefined, record?.ports?.admin),
    });
    undo.push(() => admin.stop());

    try {
      await client.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: LOCAL_NAMESPACE } });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    // With RBAC, the binaries run as their Deployment's ServiceAccount, authorized by the RBAC manifests alone.
    let binaryKubeconfig = kubeconfigPath;
    let serviceAccountKubeconfig: string | undefined;
    let mintServiceAccountKubeconfig = (): void => {};
    if (opts.rbac) {
      await applyRbacManifests(client, readRbacManifests(opts.rbacManifestDirs ?? [join(root, 'manifests', 'rbac')]));
      const sa = deploymentServiceAccount(join(root, 'manifests', 'providers', provider.name, 'deployment.yaml'));
      serviceAccountKubeconfig = binaryKubeconfig = writeServiceAccountKubeconfig(stateDir, controlPlane, sa);
      mintServiceAccountKubeconfig = () => void writeServiceAccountKubeconfig(stateDir, controlPlane, sa);
    }
    // Admission as on a cluster: the Infrastructure the webhooks read, their certificate, their configurations.
    const infra = provider.infrastructure(cloud);
    await ensureInfrastructure(client, infra.clusterName, infra.platformStatus);
    const servingCert = localServingCert(stateDir);
    const mode = opts.controllers ?? 'in-process';
    const binaryNames = binariesOf(provider).map((b) => b.name);
    // The webhook's, each binary's pprof, and (for running binaries) each one's metrics and health: all distinct.
    const ports = await freeLoopbackPorts(
      1 + (opts.pprof ? binaryNames.length : 0) + (mode !== 'none' ? 2 * binaryNames.length : 0),
    );
    const nextPort = (): number => ports.shift() ?? 0;
    const webhook = { certDir: servingCert.dir, port: nextPort() };
    webhookServices.set(WEBHOOK_SERVICE, `127.0.0.1:${webhook.port}`);
    await registerWebhookConfigurations(
      client,
      join(root, 'manifests', 'webhooks', '0000_30_machine-api_01_webhook-configurations.yaml'),
      servingCert.certPem,
    );

    const samples = readSamples(join(root, 'manifests', 'samples', provider.samplesDir));
    const createdSamples = await createIfAbsent(
      client,
      samples.filter((s) => s.object.kind === 'Secret'),
    );

    const kubelet = new KubeletSimulator({ client, view: cloud.instanceView() });
    await kubelet.start();
    undo.push(() => kubelet.stop());
    if (cloud.metadataEnv) {
      // What the machine-api-termination-handler DaemonSet would run on the interruptible Nodes.
      const handlers = new LocalTerminationHandlers({
        client,
        metadataEnv: (id) => cloud.metadataEnv?.(id) ?? Promise.resolve(undefined),
        logger: logger.child({ component: 'termination-handlers' }),
      });
      handlers.start();
      undo.push(() => handlers.stop());
    }

    let written = false;
    let writeEndpoints = (): void => {};
    const pprofPorts: Record<string, number> = {};
    if (opts.pprof) for (const name of binaryNames) pprofPorts[name] = nextPort();
    // Running binaries serve metrics and health as in a cluster, each on a loopback port of its own; the command
    // lines `--controllers none` lists keep them off, for whoever runs them to choose.
    const servePorts: Record<string, { metrics: number; health: number }> = {};
    if (mode !== 'none') for (const name of binaryNames) servePorts[name] = { metrics: nextPort(), health: nextPort() };
    const { commands, running, processes } = await startControllerBinaries({
      provider,
      cloud,
      root,
      stateDir,
      mode,
      args: { kubeconfigPath: binaryKubeconfig, leaderElect, verbosity, webhook, pprofPorts, servePorts },
      logStream,
      logger,
      env: opts.env ?? process.env,
      machineController: opts.machineController,
      beforeStart: mintServiceAccountKubeconfig,
      // endpoints.json follows every restart of a binary once it is written.
      onPid: () => {
        if (written) writeEndpoints();
      },
      undo,
    });

    // Samples go through the webhooks like any write: wait until their server answers.
    if (mode === 'processes' || running.some((b) => b.name === machineSetControllerBinary.name))
      await waitForListening(webhook.port);
    if (opts.samples ?? true)
      createdSamples.push(
        ...(await createIfAbsent(
          client,
          samples.filter((s) => s.object.kind !== 'Secret'),
        )),
      );
    // The operator ships the termination handler's MachineHealthCheck wherever it runs the handler.
    if (cloud.metadataEnv)
      createdSamples.push(
        ...(await createIfAbsent(
          client,
          readSampleFile(join(root, 'manifests', 'termination-handler', 'machinehealthcheck.yaml')),
        )),
      );

    const endpoints: Endpoints = {
      apiServer: controlPlane.httpsUrl,
      kubeconfig: kubeconfigPath,
      ...(serviceAccountKubeconfig ? { serviceAccountKubeconfig } : {}),
      provider: provider.name,
      cloud: {
        [provider.name]: { ...cloud.extraEndpoints, endpoint: cloud.endpoint, region: cloud.region, admin: admin.url },
      },
      binaries: commands,
      ...(Object.keys(servePorts).length > 0
        ? {
            metrics: urlsOf(servePorts, (p) => `http://127.0.0.1:${p.metrics}/metrics`),
            health: urlsOf(servePorts, (p) => `http://127.0.0.1:${p.health}`),
          }
        : {}),
      ...(Object.keys(pprofPorts).length > 0
        ? {
            pprof: urlsOf(pprofPorts, (port) => `http://127.0.0.1:${port}/debug/pprof`),
          }
        : {}),
    };
    writeEndpoints = () => writeFileAtomically(endpointsPath, `${JSON.stringify(endpoints, null, 2)}\n`);
    writeEndpoints();
    written = true;
    writeStateDirRecord(stateDir, {
      provider: provider.name,
      ports: {
        apiServer: Number(new URL(controlPlane.url).port),
        cloud: Number(new URL(cloud.endpoint).port),
        admin: Number(new URL(admin.url).port),
      },
    });

    let stopping: Promise<void> | undefined;
    return {
      provider,
      controlPlane,
      cloud,
      kubelet,
      client,
      kubeconfigPath,
      endpointsPath,
      endpoints,
      binaries: running,
      ...(processes ? { processes } : {}),
      createdSamples,
      logger,
      stop: () => (stopping ??= unwind()),
    };
  } catch (err) {
    await unwind();
    throw err;
  }
}
