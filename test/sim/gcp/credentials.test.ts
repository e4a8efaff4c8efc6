// The GCE emulator checks credentials as Google does: a key's JWT (a self-signed bearer token, or a JWT-bearer
// assertion at the token endpoint) must be signed by a service-account key the project has; the sample
// Secret's key is known by default, and keys can be added and deleted while it runs.
import { expect } from 'chai';
import { createSign, generateKeyPairSync } from 'node:crypto';
import { JWT } from 'google-auth-library';
import { callAdmin, startAdminServer, type AdminMethod } from '../../../sim/kit/index.js';
import {
  EMULATOR_SERVICE_ACCOUNT_KEY,
  OAUTH_TOKEN_PATH,
  startGceEmulator,
  type GceEmulator,
} from '../../../sim/gcp/index.js';

const LIST = '/compute/v1/projects/test-project/zones/us-central1-a/instances';

const newKey = (id: string) => ({
  ...EMULATOR_SERVICE_ACCOUNT_KEY,
  private_key_id: id,
  private_key: generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString(),
});

/** A self-signed JWT for the Compute API, as google-auth-library makes one from a key file without scopes. */
async function selfSigned(key: { client_email: string; private_key: string; private_key_id: string }): Promise<string> {
  const jwt = new JWT({ email: key.client_email, key: key.private_key, keyId: key.private_key_id });
  const headers = await jwt.getRequestHeaders('https://compute.googleapis.com/compute/v1/');
  return headers.get('authorization') ?? '';
}

/** A JWT-bearer grant at the emulator's token endpoint, as a key file's token_uri receives it. */
async function grant(emu: GceEmulator, key: { client_email: string; private_key: string; private_key_id: string }) {
  // The assertion a key file's JWT client posts: RS256 over header.payload, iss the account, aud the endpoint.
  const header = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT' })).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: key.client_email,
    scope: 'compute',
    aud: `${emu.endpoint}${OAUTH_TOKEN_PATH}`,
    iat: now,
    exp: now + 3600,
  };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signature = createSign('RSA-SHA256').update(`${header}.${payload}`).sign(key.private_key).toString('base64url');
  const assertion = `${header}.${payload}.${signature}`;
  const r = await fetch(`${emu.endpoint}${OAUTH_TOKEN_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
  });
  return {
    status: r.status,
    body: (await r.json()) as { access_token?: string; error?: string; error_description?: string },
  };
}

describe('GCE emulator: credentials', () => {
  let emu: GceEmulator;
  beforeEach(async () => {
    emu = await startGceEmulator({ requireAuth: true });
  });
  afterEach(() => emu.stop());

  const list = async (authorization: string) => {
    const r = await fetch(`${emu.endpoint}${LIST}`, { headers: authorization ? { authorization } : {} });
    return {
      status: r.status,
      body: (await r.json()) as { error?: { code: number; status?: string; errors: { reason: string }[] } },
    };
  };

  it('accepts a self-signed JWT of the sample Secret’s key, and answers 401 UNAUTHENTICATED to none, an unknown key or a forged signature', async () => {
    expect((await list(await selfSigned(EMULATOR_SERVICE_ACCOUNT_KEY))).status).to.equal(200);
    for (const authorization of [
      '',
      await selfSigned(newKey('unknown-key')),
      // Signed by another key while naming the known key's id: the signature does not verify.
      await selfSigned({ ...newKey('x'), private_key_id: EMULATOR_SERVICE_ACCOUNT_KEY.private_key_id }),
    ]) {
      const r = await list(authorization);
      expect(r.status).to.equal(401);
      expect(r.body.error).to.include({ code: 401, status: 'UNAUTHENTICATED' });
      expect(r.body.error?.errors[0]?.reason).to.equal('authError');
    }
  });

  it('grants tokens at its token endpoint only for assertions a known key signed, in Google’s OAuth error shape', async () => {
    const ok = await grant(emu, EMULATOR_SERVICE_ACCOUNT_KEY);
    expect(ok.status).to.equal(200);
    expect((await list(`Bearer ${ok.body.access_token}`)).status).to.equal(200);
    const unknown = await grant(emu, newKey('unknown-key'));
    expect([unknown.status, unknown.body.error]).to.deep.equal([400, 'invalid_grant']);
    const forged = await grant(emu, { ...newKey('x'), private_key_id: EMULATOR_SERVICE_ACCOUNT_KEY.private_key_id });
    expect(forged.body).to.deep.equal({ error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
  });

  it('takes keys added and deleted at run time, through the admin endpoint; tokens issued before stay valid', async () => {
    const admin = await startAdminServer({ routes: emu.adminRoutes });
    const call = async (method: AdminMethod, body?: unknown) => {
      const r = await callAdmin(admin.url, method, '/credentials', body);
      return { status: r.status, body: r.body as Record<string, unknown> };
    };
    const rotated = newKey('rotated-key-1');
    try {
      expect((await list(await selfSigned(rotated))).status).to.equal(401);
      expect(await call('POST', rotated)).to.deep.equal({
        status: 201,
        body: { client_email: rotated.client_email, private_key_id: 'rotated-key-1' },
      });
      expect((await list(await selfSigned(rotated))).status).to.equal(200);
      const issued = (await grant(emu, rotated)).body.access_token;
      expect((await call('DELETE', { private_key_id: 'rotated-key-1' })).status).to.equal(200);
      expect((await list(await selfSigned(rotated))).status).to.equal(401);
      expect((await list(`Bearer ${issued}`)).status, 'an access token outlives its key until it expires').to.equal(
        200,
      );
      expect((await call('POST', { client_email: 'a@b', private_key_id: 'k' })).body).to.deep.equal({
        error: 'private_key or public_key must be a PEM RSA key',
      });
      expect((await call('GET')).body.items).to.deep.equal([
        {
          client_email: EMULATOR_SERVICE_ACCOUNT_KEY.client_email,
          private_key_id: EMULATOR_SERVICE_ACCOUNT_KEY.private_key_id,
        },
      ]);
    } finally {
      await admin.stop();
    }
  });
});
