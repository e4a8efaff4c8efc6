// The cloud-independent half of the spot/preemption termination handler that runs on every interruptible
// Node: find which cloud the Node runs on from its providerID, ask that cloud's metadata service for a
// termination notice every poll interval, and when one comes, set Terminating=True on the Node (once). The
// machine-api-termination-handler MachineHealthCheck then deletes the Machine, which drains the Node while
// the instance still has its notice period to live.
//
// Nothing here is fatal: a metadata service that does not answer, an API server that is away or a Node not
// yet registered are retried with a growing wait, because a handler that exits is a handler that is not
// watching when the notice comes.
import type { Node } from '../apis/core.js';
import type { KubeClient } from '../client/kube-client.js';
import { Nodes } from '../client/resources.js';
import { Backoff } from '../runtime/backoff.js';
import type { Clock } from '../base/clock.js';
import type { Logger } from '../base/logger.js';
import { markNodeTerminating } from './node-terminating-writer.js';
import type { TerminationNoticeSource, TerminationNoticeSources } from './termination-notice.js';

export interface TerminationHandlerOptions {
  client: KubeClient;
  /** The Node this handler runs on (the DaemonSet passes spec.nodeName). */
  nodeName: string;
  /** One source per providerID scheme this build knows. */
  sources: TerminationNoticeSources;
  /** Time between two checks of the metadata service (--poll-interval-seconds). */
  pollIntervalMs: number;
  clock: Clock;
  logger: Logger;
  /** The wait after a failed metadata read or API call: doubles from initialMs up to maxMs. Default 1 s .. 30 s. */
  retry?: { initialMs: number; maxMs: number };
}

/**
 * How the handler's work ended: it set the condition (or found it set), its cloud announces no reclaims, or it
 * was stopped first.
 */
export type TerminationHandlerOutcome = 'marked' | 'unsupported' | 'stopped';

export async function runTerminationHandler(
  opts: TerminationHandlerOptions,
  signal: AbortSignal,
): Promise<TerminationHandlerOutcome> {
  if (!(Number.isFinite(opts.pollIntervalMs) && opts.pollIntervalMs > 0)) {
    throw new RangeError(`pollIntervalMs must be a finite number > 0, got ${opts.pollIntervalMs}`);
  }
  if (!opts.nodeName) throw new RangeError('nodeName must not be empty: the handler marks the Node it runs on');
  const log = opts.logger.child({ node: opts.nodeName });
  const backoff = new Backoff(opts.retry?.initialMs ?? 1_000, opts.retry?.maxMs ?? 30_000);
  try {
    const source = await sourceForNode(opts, log, backoff, signal);
    if (!source) return 'unsupported';
    log.debug('monitoring node termination', { cloud: source.cloud }, 1);
    await waitForNotice(opts, source, log, backoff, signal);
    await markUntilDone(opts, log, backoff, signal);
    return 'marked';
  } catch (err) {
    if (signal.aborted) return 'stopped';
    throw err;
  }
}

/** The source for the Node's cloud, undefined when that cloud has none; waits until the Node has a providerID. */
async function sourceForNode(
  opts: TerminationHandlerOptions,
  log: Logger,
  backoff: Backoff,
  signal: AbortSignal,
): Promise<TerminationNoticeSource | undefined> {
  for (;;) {
    let node: Node | undefined;
    try {
      node = await opts.client.get(Nodes, { name: opts.nodeName }, { signal });
    } catch (err) {
      if (signal.aborted) throw err;
      log.warn('cannot read the node yet; retrying', { error: err });
    }
    const providerID = node?.spec?.providerID ?? '';
    if (node && providerID) {
      backoff.reset();
      const scheme = providerSchemeOf(providerID);
      const make =
        scheme === undefined ? undefined : Object.hasOwn(opts.sources, scheme) ? opts.sources[scheme] : undefined;
      if (make) return make();
      log.info('this cloud announces no spot or preemption reclaims to its instances; nothing to watch', {
        providerID,
        knownSchemes: Object.keys(opts.sources),
      });
      return undefined;
    }
    if (node) log.info('the node has no spec.providerID yet; waiting for it to tell the cloud');
    await opts.clock.sleep(backoff.step(), signal);
  }
}

/** "aws:///us-east-1a/i-0abc" → "aws"; undefined when there is no scheme. */
export function providerSchemeOf(providerID: string): string | undefined {
  const i = providerID.indexOf('://');
  return i > 0 ? providerID.slice(0, i).toLowerCase() : undefined;
}

async function waitForNotice(
  opts: TerminationHandlerOptions,
  source: TerminationNoticeSource,
  log: Logger,
  backoff: Backoff,
  signal: AbortSignal,
): Promise<void> {
  for (;;) {
    const started = opts.clock.now();
    let wait: number;
    try {
      const notice = await source.check(signal);
      backoff.reset();
      if (notice) {
        log.info('instance marked for termination by the cloud; marking the node', {
          cloud: source.cloud,
          action: notice.action,
          time: notice.time,
        });
        return;
      }
      log.debug('instance not marked for termination', undefined, 2);
      // A source that held its request open (waiting for a change) already waited; ask again at once then.
      wait = Math.max(0, opts.pollIntervalMs - (opts.clock.now() - started));
    } catch (err) {
      if (signal.aborted) throw err;
      wait = backoff.step();
      log.warn('cannot read the termination notice; retrying', { cloud: source.cloud, error: err, retryInMs: wait });
    }
    if (wait > 0) await opts.clock.sleep(wait, signal);
  }
}

async function markUntilDone(
  opts: TerminationHandlerOptions,
  log: Logger,
  backoff: Backoff,
  signal: AbortSignal,
): Promise<void> {
  for (;;) {
    try {
      const wrote = await markNodeTerminating(opts.client, opts.nodeName, opts.clock, signal);
      log.info(wrote ? 'node marked Terminating' : 'node already marked Terminating');
      return;
    } catch (err) {
      if (signal.aborted) throw err;
      const wait = backoff.step();
      log.warn('cannot mark the node Terminating; retrying', { error: err, retryInMs: wait });
      await opts.clock.sleep(wait, signal);
    }
  }
}
