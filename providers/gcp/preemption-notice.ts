// Reads a GCE preemption notice from the metadata server: GET /computeMetadata/v1/instance/preempted with
// "Metadata-Flavor: Google" answers "FALSE" until the instance is being preempted, then "TRUE" (the guest has
// about thirty seconds left). After the first answer the request uses wait_for_change with the last ETag, so
// the server holds it open and answers the moment the value changes: the notice is seen at once instead of up
// to a poll interval late, at the cost of one open request.
import {
  MetadataServiceError,
  metadataRequest,
  type TerminationNotice,
  type TerminationNoticeSource,
} from '../../lib/index.js';

export const PREEMPTED_PATH = '/computeMetadata/v1/instance/preempted';
export const METADATA_FLAVOR = 'Metadata-Flavor';

export interface PreemptionNoticeOptions {
  /** The metadata server as GCE_METADATA_HOST gives it: "host" or "host:port". */
  host: string;
  /**
   * How long the server may hold a request open waiting for a change; 0 asks plainly each time. Default 0:
   * the handler's poll interval is the knob operators know.
   */
  waitForChangeSec?: number;
  /** Per-request time limit beyond the wait; default 5 s. */
  timeoutMs?: number;
}

export class PreemptionNoticeSource implements TerminationNoticeSource {
  readonly cloud = 'gcp';
  private readonly base: string;
  private etag?: string;

  constructor(private readonly opts: PreemptionNoticeOptions) {
    this.base = metadataBaseOf(opts.host);
    const wait = opts.waitForChangeSec ?? 0;
    if (!Number.isInteger(wait) || wait < 0)
      throw new RangeError(`waitForChangeSec must be an integer >= 0, got ${wait}`);
  }

  async check(signal: AbortSignal): Promise<TerminationNotice | undefined> {
    const wait = this.opts.waitForChangeSec ?? 0;
    const waiting = wait > 0 && this.etag !== undefined;
    const path = waiting
      ? `${PREEMPTED_PATH}?wait_for_change=true&timeout_sec=${wait}&last_etag=${encodeURIComponent(this.etag ?? '')}`
      : PREEMPTED_PATH;
    const res = await metadataRequest({
      base: this.base,
      path,
      headers: { [METADATA_FLAVOR]: 'Google' },
      signal,
      timeoutMs: (this.opts.timeoutMs ?? 5_000) + (waiting ? wait * 1000 : 0),
    });
    if (res.status !== 200) throw new MetadataServiceError(PREEMPTED_PATH, res.status, `HTTP ${res.status}`);
    // Anything that is not the metadata server (a captive proxy, a wrong port) does not send this header back.
    if (res.headers.get(METADATA_FLAVOR) !== 'Google')
      throw new MetadataServiceError(PREEMPTED_PATH, res.status, `the answer lacks ${METADATA_FLAVOR}: Google`);
    this.etag = res.headers.get('etag') ?? undefined;
    return res.body.trim() === 'TRUE' ? {} : undefined;
  }
}

/** "host[:port]" → "http://host[:port]"; a value with a scheme or a path is refused, naming the rule. */
export function metadataBaseOf(host: string): string {
  if (!host || /[/\s?#@]/.test(host))
    throw new RangeError(`the GCE metadata host must be "host" or "host:port", got ${JSON.stringify(host)}`);
  const url = new URL(`http://${host}`);
  return url.origin;
}
