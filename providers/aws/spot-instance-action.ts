// Reads an AWS Spot interruption notice from the instance metadata service (IMDSv2): a session token from
// PUT /latest/api/token, then GET /latest/meta-data/spot/instance-action with it. EC2 answers 404 until it has
// decided to reclaim the instance, then {"action": "terminate"|"stop"|"hibernate", "time": "<RFC 3339>"} about
// two minutes before it does. The token is reused until shortly before it expires; a 401 (the token expired or
// the service restarted) fetches a new one and asks again.
import {
  MetadataServiceError,
  metadataRequest,
  RealClock,
  type Clock,
  type TerminationNotice,
  type TerminationNoticeSource,
} from '../../lib/index.js';

export const IMDS_TOKEN_PATH = '/latest/api/token';
export const SPOT_INSTANCE_ACTION_PATH = '/latest/meta-data/spot/instance-action';
export const IMDS_TOKEN_TTL_HEADER = 'x-aws-ec2-metadata-token-ttl-seconds';
export const IMDS_TOKEN_HEADER = 'x-aws-ec2-metadata-token';

export interface SpotInstanceActionOptions {
  /** The IMDS base URL, e.g. "http://169.254.169.254" (what AWS_EC2_METADATA_SERVICE_ENDPOINT holds). */
  endpoint: string;
  /** Lifetime asked for each token; default 21600 s (6 h, the most IMDS grants). */
  tokenTtlSeconds?: number;
  /** Per-request time limit; default 5 s. */
  timeoutMs?: number;
  clock?: Clock;
}

/** A token is renewed this long before it expires, so a request never carries one that lapses on the way. */
const TOKEN_RENEW_MARGIN_MS = 60_000;

export class SpotInstanceActionSource implements TerminationNoticeSource {
  readonly cloud = 'aws';
  private token?: { value: string; renewAt: number };
  private readonly ttlSeconds: number;
  private readonly clock: Clock;

  constructor(private readonly opts: SpotInstanceActionOptions) {
    new URL(opts.endpoint); // a malformed endpoint fails here, at start-up, not at the first poll
    this.ttlSeconds = opts.tokenTtlSeconds ?? 21_600;
    if (!Number.isInteger(this.ttlSeconds) || this.ttlSeconds < 1 || this.ttlSeconds > 21_600) {
      throw new RangeError(`tokenTtlSeconds must be an integer from 1 to 21600, got ${this.ttlSeconds}`);
    }
    this.clock = opts.clock ?? new RealClock();
  }

  async check(signal: AbortSignal): Promise<TerminationNotice | undefined> {
    let res = await this.getInstanceAction(await this.sessionToken(signal), signal);
    if (res.status === 401) {
      this.token = undefined;
      res = await this.getInstanceAction(await this.sessionToken(signal), signal);
    }
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw new MetadataServiceError(SPOT_INSTANCE_ACTION_PATH, res.status, `HTTP ${res.status}`);
    return parseInstanceAction(res.body);
  }

  private getInstanceAction(token: string, signal: AbortSignal) {
    return metadataRequest({
      base: this.opts.endpoint,
      path: SPOT_INSTANCE_ACTION_PATH,
      headers: { [IMDS_TOKEN_HEADER]: token },
      signal,
      timeoutMs: this.opts.timeoutMs,
    });
  }

  private async sessionToken(signal: AbortSignal): Promise<string> {
    if (this.token && this.clock.now() < this.token.renewAt) return this.token.value;
    const requestedAt = this.clock.now();
    const res = await metadataRequest({
      base: this.opts.endpoint,
      path: IMDS_TOKEN_PATH,
      method: 'PUT',
      headers: { [IMDS_TOKEN_TTL_HEADER]: String(this.ttlSeconds) },
      signal,
      timeoutMs: this.opts.timeoutMs,
    });
    if (res.status !== 200 || !res.body)
      throw new MetadataServiceError(IMDS_TOKEN_PATH, res.status, `no session token (HTTP ${res.status})`);
    const granted = Number(res.headers.get(IMDS_TOKEN_TTL_HEADER) ?? this.ttlSeconds);
    const lifetimeMs = (Number.isFinite(granted) && granted > 0 ? granted : this.ttlSeconds) * 1000;
    this.token = {
      value: res.body,
      renewAt: requestedAt + Math.max(lifetimeMs / 2, lifetimeMs - TOKEN_RENEW_MARGIN_MS),
    };
    return res.body;
  }
}

/** EC2's instance-action document; an unreadable one is still a notice (the 200 is what counts). */
function parseInstanceAction(body: string): TerminationNotice {
  try {
    const doc = JSON.parse(body) as { action?: unknown; time?: unknown };
    return {
      action: typeof doc.action === 'string' ? doc.action : undefined,
      time: typeof doc.time === 'string' ? doc.time : undefined,
    };
  } catch {
    return {};
  }
}
