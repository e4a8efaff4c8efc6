// What a cloud's instance metadata service tells the instance about its own coming end, and the one port a
// cloud implements to read it. lib knows no cloud: the termination handler is given one source per
// providerID scheme and picks the one its Node belongs to.

/** The cloud has announced that this instance will be reclaimed. */
export interface TerminationNotice {
  /** What the cloud will do, in its words when it says (e.g. AWS "terminate", "stop", "hibernate"). */
  action?: string;
  /** When it will happen (RFC 3339), when the cloud says. */
  time?: string;
}

export interface TerminationNoticeSource {
  /** Names the cloud in logs, e.g. "aws" or "gcp". */
  readonly cloud: string;
  /**
   * Asks once; resolves with the notice, or undefined while there is none. A source may hold the request open
   * for a while (a hanging GET) as long as it honours the signal. Rejects with MetadataServiceError (or a
   * network error) when the metadata service could not be asked; the caller retries.
   */
  check(signal: AbortSignal): Promise<TerminationNotice | undefined>;
}

/** A source per providerID scheme ("aws", "gce", ...); the factory runs once the Node's scheme is known. */
export type TerminationNoticeSources = Readonly<Record<string, () => TerminationNoticeSource>>;

/** The instance metadata service answered something other than a notice or "no notice". */
export class MetadataServiceError extends Error {
  constructor(
    /** The path asked for, e.g. "/latest/meta-data/spot/instance-action". */
    readonly path: string,
    /** The HTTP status, or undefined when there was no answer. */
    readonly status: number | undefined,
    detail: string,
  ) {
    super(`instance metadata ${path}: ${detail}`);
    this.name = 'MetadataServiceError';
  }
}
