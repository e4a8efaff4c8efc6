// The long-term access keys the emulated account has (an IAM user's AKIA... id and its secret): the secret is
// what a request's SigV4 signature is checked with. The sample credentials Secret's key is known by default,
// so `npm start` works out of the box; tests and people add or revoke keys at run time.
import { adminString, type CredentialsAdmin } from '../kit/index.js';

export interface AccessKey {
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * The key of manifests/samples/aws/00-credentials-secret.yaml: what a default emulator accepts. Not frozen: the
 * AWS SDK marks the credentials objects it is given.
 */
export const EMULATOR_ACCESS_KEY: Readonly<AccessKey> = {
  accessKeyId: 'AKIALOCALEMULATOR000',
  secretAccessKey: 'local-emulator-only-not-a-real-secret',
};

export class AccessKeyStore implements CredentialsAdmin {
  private readonly secrets = new Map<string, string>();

  constructor(keys: readonly AccessKey[]) {
    for (const k of keys) this.addKey(k);
  }

  /** The secret of a known key; undefined when the account has no such key. */
  secretOf(accessKeyId: string): string | undefined {
    return this.secrets.get(accessKeyId);
  }

  addKey(k: AccessKey): void {
    if (!k.accessKeyId || !k.secretAccessKey)
      throw new RangeError('an access key needs an accessKeyId and a secretAccessKey');
    this.secrets.set(k.accessKeyId, k.secretAccessKey);
  }

  revokeKey(accessKeyId: string): boolean {
    return this.secrets.delete(accessKeyId);
  }

  add(body: Record<string, unknown>): Record<string, unknown> {
    const accessKeyId = adminString(body, 'accessKeyId');
    this.addKey({ accessKeyId, secretAccessKey: adminString(body, 'secretAccessKey') });
    return { accessKeyId };
  }

  revoke(body: Record<string, unknown>): boolean {
    return this.revokeKey(adminString(body, 'accessKeyId'));
  }

  list(): Record<string, unknown>[] {
    return [...this.secrets.keys()].map((accessKeyId) => ({ accessKeyId }));
  }
}
