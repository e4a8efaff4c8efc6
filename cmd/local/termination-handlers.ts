// The termination handler's DaemonSet, in the local environment: one handler per interruptible Node (the
// label NodeLink copies from the Machine), each given only its instance's metadata endpoint variable, as its
// pod would be, and built by the binary's own code (the same sources, the same poller). So `npm start` shows
// the whole reclaim: the emulator's notice → Node Terminating → the MachineHealthCheck deletes the Machine →
// drain → replacement. A handler stops when its Node goes.
import {
  MachineInterruptibleInstanceLabel,
  Nodes,
  RealClock,
  runTerminationHandler,
  type KubeClient,
  type Logger,
} from '../../lib/index.js';
import { cloudProviders, metadataEndpointsFromEnv, noticeSources } from '../internal/index.js';

export interface LocalTerminationHandlersOptions {
  client: KubeClient;
  /** The metadata variables of the instance behind a providerID; undefined when the cloud has none. */
  metadataEnv(providerID: string): Promise<NodeJS.ProcessEnv | undefined>;
  logger: Logger;
  /** How often Nodes are listed to start and stop handlers; default 2 s. */
  resyncMs?: number;
  /** The handlers' --poll-interval-seconds; default 1 (a local run wants to see the notice at once). */
  pollIntervalSeconds?: number;
}

export class LocalTerminationHandlers {
  private readonly running = new Map<string, { providerID: string; stop: AbortController; done: Promise<unknown> }>();
  private timer?: NodeJS.Timeout;
  private syncing = Promise.resolve();
  private stopped = false;

  constructor(private readonly opts: LocalTerminationHandlersOptions) {}

  start(): void {
    this.timer = setInterval(() => this.kick(), this.opts.resyncMs ?? 2_000);
    this.kick();
  }

  /** Node names that have a handler running. */
  nodes(): string[] {
    return [...this.running.keys()];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.syncing;
    for (const h of this.running.values()) h.stop.abort();
    await Promise.all([...this.running.values()].map((h) => h.done));
    this.running.clear();
  }

  private kick(): void {
    this.syncing = this.syncing
      .then(() => this.sync())
      .catch((err: unknown) => this.opts.logger.warn('termination handlers: cannot list nodes', { error: err }));
  }

  private async sync(): Promise<void> {
    if (this.stopped) return;
    const { items } = await this.opts.client.list(Nodes, { labelSelector: MachineInterruptibleInstanceLabel });
    const wanted = new Map(items.map((n) => [n.metadata.name ?? '', n.spec?.providerID ?? '']));
    for (const [name, h] of this.running) {
      if (wanted.get(name) === h.providerID) continue;
      h.stop.abort();
      this.running.delete(name);
    }
    for (const [name, providerID] of wanted) {
      if (!name || !providerID || this.running.has(name) || this.stopped) continue;
      const env = await this.opts.metadataEnv(providerID);
      if (!env) continue;
      const poll = this.opts.pollIntervalSeconds ?? 1;
      const stop = new AbortController();
      const logger = this.opts.logger.child({ component: 'termination-handler' });
      const done = runTerminationHandler(
        {
          client: this.opts.client,
          nodeName: name,
          sources: noticeSources(cloudProviders, metadataEndpointsFromEnv(env, cloudProviders), poll),
          pollIntervalMs: poll * 1000,
          clock: new RealClock(),
          logger,
        },
        stop.signal,
      ).catch((err: unknown) => logger.error('termination handler failed', { node: name, error: err }));
      this.running.set(name, { providerID, stop, done });
    }
  }
}
