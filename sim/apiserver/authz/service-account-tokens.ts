// ServiceAccount tokens: signed JWTs (HS256) naming the account and its uid, so they need no storage and
// survive a restart of the control plane that keeps its signing key. A token stops working when its
// ServiceAccount is deleted or replaced (the uid no longer matches), as kube's bound tokens do.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ServiceAccountRef } from './user.js';

export interface ServiceAccountIdentity extends ServiceAccountRef {
  uid: string;
}

export const TokenIssuer = 'machine-api-envtest';

const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

export class ServiceAccountTokens {
  private readonly key: Buffer;

  /** The signing key is derived from `secret` (the control plane's admin token), never used as is. */
  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('service-account-token-signing').digest();
  }

  mint(sa: ServiceAccountIdentity, issuedAtMs: number): string {
    const claims = {
      iss: TokenIssuer,
      sub: `system:serviceaccount:${sa.namespace}:${sa.name}`,
      iat: Math.floor(issuedAtMs / 1000),
      'kubernetes.io': { namespace: sa.namespace, serviceaccount: { name: sa.name, uid: sa.uid } },
    };
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${header}.${payload}.${this.sign(`${header}.${payload}`)}`;
  }

  /** The account a token was minted for, or undefined when it is not one of ours. */
  verify(token: string): ServiceAccountIdentity | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const [h, payload, signature] = parts as [string, string, string];
    const expected = Buffer.from(this.sign(`${h}.${payload}`));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let claims: unknown;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    const k = (
      claims as { 'kubernetes.io'?: { namespace?: unknown; serviceaccount?: { name?: unknown; uid?: unknown } } }
    )['kubernetes.io'];
    const namespace = k?.namespace;
    const name = k?.serviceaccount?.name;
    const uid = k?.serviceaccount?.uid;
    if (typeof namespace !== 'string' || typeof name !== 'string' || typeof uid !== 'string') return undefined;
    return { namespace, name, uid };
  }

  private sign(input: string): string {
    return createHmac('sha256', this.key).update(input).digest('base64url');
  }
}
