// Bearer-token authentication: the control plane's own token is its administrator; a ServiceAccount token
// (see service-account-tokens.ts) is that account, while the account exists with the uid it was minted for.
import { timingSafeEqual } from 'node:crypto';
import type { ServiceAccountTokens } from './service-account-tokens.js';
import { AdminUser, serviceAccountUser, type ServiceAccountRef, type UserInfo } from './user.js';

export interface AuthenticatorOptions {
  adminToken: string;
  serviceAccountTokens: ServiceAccountTokens;
  /** The uid of the stored ServiceAccount, undefined when there is none. */
  serviceAccountUid: (sa: ServiceAccountRef) => string | undefined;
}

export class Authenticator {
  private readonly admin: Buffer;

  constructor(private readonly opts: AuthenticatorOptions) {
    this.admin = Buffer.from(opts.adminToken);
  }

  /** The user behind an Authorization header, or undefined (401). */
  authenticate(authorization: string | undefined): UserInfo | undefined {
    const m = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
    const token = m?.[1]?.trim();
    if (!token) return undefined;
    const given = Buffer.from(token);
    if (given.length === this.admin.length && timingSafeEqual(given, this.admin))
      return { username: AdminUser.username, groups: [...AdminUser.groups] };
    const sa = this.opts.serviceAccountTokens.verify(token);
    if (!sa || this.opts.serviceAccountUid(sa) !== sa.uid) return undefined;
    return serviceAccountUser(sa);
  }
}
