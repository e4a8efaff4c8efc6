// A controller binary run as its own process, as a Deployment would run it: started with its real flags and
// node flags, observed from outside (Prometheus /metrics, V8 heap used and limit from it, peak RSS from /proc),
// killed with SIGKILL or stopped with SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { compiledEntry } from '../../cmd/local/compiled-sources.js';
import { freeLoopbackPort } from '../../cmd/local/preferred-port.js';
import { imageCommandEntry, launchNodeFlags } from './image-commands.js';
import { awsBench, type BenchProvider } from './providers.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ControllerProcessOptions {
  name: string;
  /** Script path relative to the repo root, e.g. cmd/machineset-controller.ts. */
  script: string;
  args: string[];
  /** stdout and stderr are appended here. */
  logFile: string;
  /** Run <compiledDir>/<script>.js with plain node; unset: the TypeScript source through tsx. */
  compiledDir?: string;
  /** Flags for node itself (see deploymentNodeFlags). */
  nodeFlags?: string[];
  /** The flags that serve /metrics on the port (default: a controller's --metrics-bind-address, no health port). */
  metricsFlags?: (port: number) => string[];
  /** Sent as a bearer token with every /metrics scrape (machine-api-envtest's /metrics asks for its API token). */
  metricsToken?: string;
  /** Added to the environment the binary starts with (secrets go here, never on the command line). */
  env?: Record<string, string>;
}

const controllerMetricsFlags = (port: number) => [`--metrics-bind-address=127.0.0.1:${port}`, '--health-addr='];

/**
 * The node flags the Deployment of `cloud` runs `script` with, so that what is measured here (peak RSS above
 * all) is what a cluster runs: the launcher's when the container runs one of the image's commands, else the
 * flags of `command: [node, <flags>..., /app/dist/<script>.js]`.
 */
export function deploymentNodeFlags(cloud: string, script: string): string[] {
  const path = join(REPO_ROOT, 'manifests', 'providers', cloud, 'deployment.yaml');
  const image = `/app/dist/${script.replace(/\.ts$/, '.js')}`;
  for (const doc of parseAllDocuments(readFileSync(path, 'utf8'))) {
    const d = doc.toJS() as {
      kind?: string;
      spec?: { template?: { spec?: { containers?: Array<{ command?: string[] }> } } };
    } | null;
    for (const c of d?.spec?.template?.spec?.containers ?? []) {
      const cmd = c.command ?? [];
      if (cmd.length === 1 && imageCommandEntry(cmd[0]!, cloud) === script) return launchNodeFlags();
      if (cmd[cmd.length - 1] === image) return cmd.slice(1, -1);
    }
  }
  throw new Error(`${path}: no container runs ${script}`);
}

/** Sums the samples of a Prometheus counter whose labels contain every given label. */
export function sumMetric(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = new Map<string, string>();
    for (const kv of (m[3] ?? '').matchAll(/([a-zA-Z_]+)="([^"]*)"/g)) have.set(kv[1] ?? '', kv[2] ?? '');
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) total += Number(m[4]);
  }
  return total;
}

export class ControllerProcess {
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private log: WriteStream;
  private metricsPort = 0;
  /** Highest VmHWM seen over every incarnation, in bytes. */
  peakRssBytes = 0;
  /** Highest nodejs_heap_size_used_bytes scraped since resetHeapPeak(), in bytes. */
  peakHeapUsedBytes = 0;
  /** nodejs_heap_size_limit_bytes as last scraped (0 until then): the V8 heap limit its node flags give it. */
  heapLimitBytes = 0;
  private heapScrape?: Promise<void>;
  restarts = 0;

  constructor(private readonly opts: ControllerProcessOptions) {
    this.log = createWriteStream(opts.logFile, { flags: 'a', mode: 0o600 });
  }

  get name(): string {
    return this.opts.name;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.metricsPort = await freeLoopbackPort();
    const args = [...this.opts.args, ...(this.opts.metricsFlags ?? controllerMetricsFlags)(this.metricsPort)];
    const entry = this.opts.compiledDir
      ? [compiledEntry(this.opts.compiledDir, this.opts.script)]
      : ['--import', 'tsx', join(REPO_ROOT, this.opts.script)];
    const child = spawn(process.execPath, [...(this.opts.nodeFlags ?? []), ...entry, ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        AWS_EC2_METADATA_DISABLED: 'true',
        ...this.opts.env,
      },
    });
    child.stdout?.pipe(this.log, { end: false });
    child.stderr?.pipe(this.log, { end: false });
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.child = child;
  }

  /**
   * Polls /metrics until it answers (the manager is up). The bound is generous because a loaded 2-core machine
   * starting a dozen Node processes at once can take over a minute to load them all.
   */
  async waitReady(timeoutMs = 180_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running)
        throw new Error(`${this.name} exited during start (code ${this.child?.exitCode}, see ${this.opts.logFile})`);
      try {
        await this.metrics();
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`${this.name} did not serve /metrics within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  async metrics(): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${this.metricsPort}/metrics`, {
      signal: AbortSignal.timeout(5_000),
      headers: this.opts.metricsToken ? { authorization: `Bearer ${this.opts.metricsToken}` } : {},
    });
    if (!res.ok) throw new Error(`/metrics answered ${res.status}`);
    return res.text();
  }

  /** Reads VmHWM now (the kernel keeps the peak), remembering the highest. */
  sampleRss(): number {
    const pid = this.child?.pid;
    if (pid === undefined || !this.running) return this.peakRssBytes;
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+)\s+kB/.exec(status)?.[1] ?? 0);
      this.peakRssBytes = Math.max(this.peakRssBytes, kb * 1024);
    } catch {
      // Exited between the check and the read.
    }
    return this.peakRssBytes;
  }

  /** Records the V8 heap used (keeping the peak) and the heap limit from a /metrics text of this process. */
  observeMetrics(text: string): void {
    const used = sumMetric(text, 'nodejs_heap_size_used_bytes');
    const limit = sumMetric(text, 'nodejs_heap_size_limit_bytes');
    this.peakHeapUsedBytes = Math.max(this.peakHeapUsedBytes, used);
    if (limit > 0) this.heapLimitBytes = limit;
  }

  /** Scrapes /metrics for the heap figures; a scrape still in flight is not doubled, a failed one is skipped. */
  sampleHeap(): Promise<void> {
    if (!this.running) return Promise.resolve();
    this.heapScrape ??= this.metrics()
      .then((text) => this.observeMetrics(text))
      .catch(() => undefined)
      .finally(() => (this.heapScrape = undefined));
    return this.heapScrape;
  }

  /** Starts a new window for peakHeapUsedBytes (each scenario keeps its own peak). */
  resetHeapPeak(): void {
    this.peakHeapUsedBytes = 0;
  }

  /** Everything this binary wrote to stdout and stderr so far, over every incarnation. */
  logText(): string {
    try {
      return readFileSync(this.opts.logFile, 'utf8');
    } catch {
      return '';
    }
  }

  /** SIGKILL: no graceful shutdown, in-flight calls are cut. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.sampleRss();
    this.child?.kill('SIGKILL');
    await this.exited;
  }

  async restart(): Promise<void> {
    await this.kill();
    this.restarts++;
    await this.start();
  }

  /** SIGTERM, then SIGKILL if it does not exit in time. */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (this.running) {
      this.sampleRss();
      this.child?.kill('SIGTERM');
      const timer = setTimeout(() => this.child?.kill('SIGKILL'), timeoutMs);
      await this.exited;
      clearTimeout(timer);
    }
    await new Promise<void>((resolve) => this.log.end(() => resolve()));
  }
}

/**
 * The benchmark and chaos runs measure the controllers; nothing registers the admission webhooks with their
 * control plane, so the machineset-controller runs without its webhook server (no certificate to mount).
 */
export const MACHINESET_WITHOUT_WEBHOOKS = ['--webhook-enabled=false'];

/** The Deployment containers the benchmark runs: the cloud's provider binary, the MachineSet and NodeLink controllers. */
export function controllerProcesses(o: {
  kubeconfigPath: string;
  cloudArgs: string[];
  provider?: BenchProvider;
  namespace: string;
  logDir: string;
  extraArgs?: string[];
  /** Flags for the provider binary alone (e.g. --enable-pprof with its own --pprof-bind-address). */
  providerArgs?: string[];
  compiledDir?: string;
}): ControllerProcess[] {
  const common = [
    `--kubeconfig=${o.kubeconfigPath}`,
    `--namespace=${o.namespace}`,
    '--graceful-shutdown-timeout=5s',
    ...(o.extraArgs ?? []),
  ];
  const provider = o.provider ?? awsBench;
  const binary = provider.binary;
  return [
    new ControllerProcess({
      name: binary.name,
      script: binary.script,
      args: [...common, ...o.cloudArgs, ...(o.providerArgs ?? [])],
      logFile: join(o.logDir, `${binary.name}.log`),
      compiledDir: o.compiledDir,
      nodeFlags: deploymentNodeFlags(provider.name, binary.script),
    }),
    new ControllerProcess({
      name: 'machineset-controller',
      script: 'cmd/machineset-controller.ts',
      args: [...common, ...MACHINESET_WITHOUT_WEBHOOKS],
      logFile: join(o.logDir, 'machineset-controller.log'),
      compiledDir: o.compiledDir,
      nodeFlags: deploymentNodeFlags(provider.name, 'cmd/machineset-controller.ts'),
    }),
    new ControllerProcess({
      name: 'nodelink-controller',
      script: 'cmd/nodelink-controller.ts',
      args: common,
      logFile: join(o.logDir, 'nodelink-controller.log'),
      compiledDir: o.compiledDir,
      nodeFlags: deploymentNodeFlags(provider.name, 'cmd/nodelink-controller.ts'),
    }),
  ];
}
