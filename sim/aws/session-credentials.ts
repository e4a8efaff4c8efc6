// Temporary credentials as STS issues them (an ASIA access key id, a secret and a session token that expire
// together) and the check EC2 makes of a request signed with them: known key, matching session token, not
// expired. Web identity tokens are not verified: the emulator does not know the cluster's OIDC issuer.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../lib/index.js';

export interface SessionCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  /** ms since the epoch, on the emulator's clock. */
  expiresAt: number;
  roleArn: string;
  sessionName: string;
}

/** AWS's bounds for AssumeRoleWithWebIdentity's DurationSeconds. */
export const MIN_SESSION_SECONDS = 900;
export const MAX_SESSION_SECONDS = 43_200;

export class SessionCredentialStore {
  private readonly byKey = new Map<string, SessionCredentials>();
  /** How long a session lasts when the caller asks for no DurationSeconds (AWS: 3600 s). */
  defaultSeconds = 3600;

  constructor(private readonly clock: Clock) {}

  issue(roleArn: string, sessionName: string, durationSeconds: number | undefined): SessionCredentials {
    const c: SessionCredentials = {
      accessKeyId: `ASIA${randomBytes(8).toString('hex').toUpperCase()}`,
      secretAccessKey: randomBytes(30).toString('base64'),
      sessionToken: `IQoJb3JpZ2luX2Vj${randomBytes(48).toString('base64')}`,
      expiresAt: this.clock.now() + (durationSeconds ?? this.defaultSeconds) * 1000,
      roleArn,
      sessionName,
    };
    this.byKey.set(c.accessKeyId, c);
    return c;
  }

  has(accessKeyId: string): boolean {
    return this.byKey.has(accessKeyId);
  }

  /** The secret of a session's key (what its requests are signed with). */
  secretOf(accessKeyId: string): string | undefined {
    return this.byKey.get(accessKeyId)?.secretAccessKey;
  }

  /** Why a request signed with this key and token is refused (undefined: accepted). */
  refusal(accessKeyId: string, sessionToken: string | undefined): { code: string; message: string } | undefined {
    const c = this.byKey.get(accessKeyId);
    if (!c || c.sessionToken !== sessionToken)
      return { code: 'AuthFailure', message: 'AWS was not able to validate the provided access credentials' };
    if (this.clock.now() >= c.expiresAt) return { code: 'RequestExpired', message: 'Request has expired.' };
    return undefined;
  }

  /** Every session issued, newest last. */
  all(): SessionCredentials[] {
    return [...this.byKey.values()];
  }
}
