// The service-account keys the emulated project has: a key's id (private_key_id), its account (client_email)
// and the public half, which is what Google checks a key's signed JWTs with (a JWT-bearer assertion at the
// token endpoint, or a self-signed JWT sent as the bearer token itself). The key of the sample credentials
// Secret (manifests/samples/gcp) is known by default; it was generated for the emulator and signs nothing
// anywhere else. Keys can be added and deleted while the emulator runs.
import { createPrivateKey, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { AdminRequestError, adminString, type CredentialsAdmin } from '../kit/index.js';

const EMULATOR_PRIVATE_KEY =
  [
    '-----BEGIN PRIVATE KEY-----',
    'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCydqGi0llTSrgo',
    'nH/Z6bFNxo69vBTZ3nVjU3d6sQA01U6WcsJayz7I+9sxF0SwjuJpXrmGfgCadxir',
    'zDUXvJlrHwY/PfPuTPWdlRhPMZB1c8Hw6vdnoGu2bM1Ag/WcfUtiDTjO6v9kBF81',
    'ulhxHywIvls4xAmu/2ICBVFEemhjLS0pgPUyNaXkLIvM7lmuLiJXCeAJZB9kJe3a',
    'ZFW+q5xoNSgonv4ISwz7gkqC/pSdp1b4IUMcClVK+yjPI9O1lBFsU/T2M7gptgx2',
    'sGrLxeHviYw3B78F7zaSFYxqb/LbShz022Z+6SjZkuLc4TZrQXjYBv0OpwcuJrAv',
    '455V0eJ5AgMBAAECggEAGfwEbl7mwyYkuMMKqYmpd3vS4kTdm1hU6rynL53QfCDX',
    'w7ebXVls/5oOMPBkn7l6NWHlrPOxNkxjcvY1f8qF4w8+G1yzpO2fMI3aH4PFtxg+',
    '84tesP+uVz4xx3Q/QYULwg/PRu939pHdZAcJJBVoFbDTuujuSQTlugoYqloRU2kt',
    'BKEJ9wUUodcnoUWK/Q7hNpnWnJk3VqKBJFREPdjktgXrACcrXId7Z1ZE8sSxoapu',
    'yORMc2d7ry8QGsRYCAWgdIPf/6o1XDqhAmLki6b2xL0hhdl0717uIE1CV4TQXt5C',
    'JPMe7YivnYygMMxSdHUedMp+aXP09ZfLxkU5n+KqRQKBgQDXWr57eYt2HaBGzevb',
    'UrAdbVqAB4mZU/T+H6QQEdwa/HJwv6+oWmmj0YxxK6NV0A35YlEyJmcTsF3iUwiG',
    '0+hjc6blKmta27y9Kw/DOHguU2Y1q5ZQH5LqrYN3srh8IPlwBEKGGw/gd7oeuUSd',
    'bzBzMQjv4Q8nyFmXn4oNASmZRQKBgQDUJW0ZcMqM85dbZJANMaaW3xK71awjwX7K',
    'bfcFBejc+woBMR1UvCMZ4OH+yszpacbhdN2cp4sDxjQMR3isj4hEZHnHjcAq9qKr',
    'OmE2+8q1hBbiARCFy6Zt3UbHBdlkDPLkGyxCfUdY+BPO61iipg3DyP+P01BMOW1q',
    '0SBQD9DFpQKBgEM88+g9ZMu2KEqzFIbf5FjrwavjrpSO4BlP67uQt/Y9B8YoM0IP',
    'KJibXowfIdozIYnRpqRP1TMSh92YKztdgls6yssWWXp+zQkLHtrHEM71/x2Wu1G8',
    '6fQXxMpkpLEs4nSU/+g7HtPozdW15rR4+NmeX7n1vPOg3Eg46bNxv3k5AoGAFfXJ',
    '1VhXnz+X6139i2AYXoW46rizmP/uoAXCDEMQV8+kuXrcDmlrOMKOolFb5M2OSMhQ',
    'KGcvfLSHrr23QCWbdXjxIjcKLWhabl8csRRfZ2rE86AolbD/CWBeczunxTOR8Qrf',
    'CgLt38fORR0Xj76griOgUMMPDNTk/qmnLqJ0egECgYEAprFt1fN+/g+lCuglHTlK',
    'IDWwSCJJttmTQgIdM4uLaPK2awVpKvKDl1v6TlLY/VDy5iHrldrYF3wnkPenh79r',
    'in84thLw3sshbIf5xFoH9aLiU4vcgpPs8/6Z48LwfDak/iW0aiyPZtKeW9nWoYey',
    'i7LnuICEP21XXWd+JQCiHbY=',
    '-----END PRIVATE KEY-----',
  ].join('\n') + '\n';

/**
 * The service_account.json of manifests/samples/gcp/00-credentials-secret.yaml: what a default emulator
 * accepts. Its token_uri is Google's, as in a real key file: google-auth-library signs its own JWTs for
 * Compute calls with it and never asks a token endpoint.
 */
export const EMULATOR_SERVICE_ACCOUNT_KEY = {
  type: 'service_account',
  project_id: 'test-project',
  private_key_id: 'e0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3',
  private_key: EMULATOR_PRIVATE_KEY,
  client_email: 'machine-api@test-project.iam.gserviceaccount.com',
  client_id: '100000000000000000001',
  auth_uri: 'https://accounts.google.com/o/oauth2/auth',
  token_uri: 'https://oauth2.googleapis.com/token',
} as const;

/** A key as the emulator is given it: a key file's fields, with the private key or only the public one. */
export interface ServiceAccountKeyInput {
  client_email: string;
  private_key_id: string;
  private_key?: string;
  public_key?: string;
}

interface KnownKey {
  clientEmail: string;
  publicKey: KeyObject;
}

/** What checking a JWT found: its claims and the key that signed it, or why it is refused. */
export type JwtCheck =
  | { ok: true; claims: Record<string, unknown>; clientEmail: string; keyId: string }
  | { ok: false; why: 'malformed' | 'unknown-key' | 'bad-signature' };

export class ServiceAccountKeys implements CredentialsAdmin {
  private readonly byId = new Map<string, KnownKey>();

  constructor(keys: readonly ServiceAccountKeyInput[]) {
    for (const k of keys) this.addKey(k);
  }

  addKey(k: ServiceAccountKeyInput): void {
    if (!k.client_email || !k.private_key_id) throw new RangeError('a key needs a client_email and a private_key_id');
    let publicKey: KeyObject;
    try {
      publicKey = k.public_key ? createPublicKey(k.public_key) : createPublicKey(createPrivateKey(k.private_key ?? ''));
    } catch {
      throw new RangeError('private_key (or public_key) must be a PEM RSA key');
    }
    if (publicKey.asymmetricKeyType !== 'rsa') throw new RangeError('private_key (or public_key) must be an RSA key');
    this.byId.set(k.private_key_id, { clientEmail: k.client_email, publicKey });
  }

  deleteKey(privateKeyId: string): boolean {
    return this.byId.delete(privateKeyId);
  }

  /**
   * Checks a JWT's RS256 signature against the key its header names (kid), or, without a kid, against the
   * keys of the account it says it is from (iss).
   */
  check(jwt: string): JwtCheck {
    const parts = jwt.split('.');
    if (parts.length !== 3) return { ok: false, why: 'malformed' };
    const [h, p, s] = parts as [string, string, string];
    let header: { alg?: unknown; kid?: unknown };
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as typeof header;
      claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return { ok: false, why: 'malformed' };
    }
    if (header.alg !== 'RS256' || typeof claims !== 'object' || claims === null) return { ok: false, why: 'malformed' };
    const iss = typeof claims.iss === 'string' ? claims.iss : '';
    const candidates =
      typeof header.kid === 'string'
        ? [[header.kid, this.byId.get(header.kid)] as const].filter(([, k]) => k?.clientEmail === iss)
        : [...this.byId].filter(([, k]) => k.clientEmail === iss);
    if (candidates.length === 0) return { ok: false, why: 'unknown-key' };
    const data = Buffer.from(`${h}.${p}`);
    const signature = Buffer.from(s, 'base64url');
    for (const [keyId, key] of candidates) {
      if (key && verify('RSA-SHA256', data, key.publicKey, signature))
        return { ok: true, claims, clientEmail: iss, keyId };
    }
    return { ok: false, why: 'bad-signature' };
  }

  add(body: Record<string, unknown>): Record<string, unknown> {
    const input: ServiceAccountKeyInput = {
      client_email: adminString(body, 'client_email'),
      private_key_id: adminString(body, 'private_key_id'),
      private_key: typeof body.private_key === 'string' ? body.private_key : undefined,
      public_key: typeof body.public_key === 'string' ? body.public_key : undefined,
    };
    if (!input.private_key && !input.public_key)
      throw new AdminRequestError(400, 'private_key or public_key must be a PEM RSA key');
    try {
      this.addKey(input);
    } catch (err) {
      throw new AdminRequestError(400, (err as Error).message);
    }
    return { client_email: input.client_email, private_key_id: input.private_key_id };
  }

  revoke(body: Record<string, unknown>): boolean {
    return this.deleteKey(adminString(body, 'private_key_id'));
  }

  list(): Record<string, unknown>[] {
    return [...this.byId].map(([id, k]) => ({ client_email: k.clientEmail, private_key_id: id }));
  }
}
