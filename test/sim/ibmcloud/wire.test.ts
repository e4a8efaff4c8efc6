import { expect } from 'chai';
import type { IbmVpcEmulator } from '../../../sim/ibmcloud/index.js';
import { callAdmin, startAdminServer, type AdminMethod } from '../../../sim/kit/index.js';
import { rawToken, startEmulator } from '../../providers/ibmcloud/ibm-test-env.js';

interface VpcErrorBody {
  errors: { code: string; message: string; more_info: string; target?: { name: string; type: string } }[];
  trace: string;
}

describe('IBM VPC emulator: the wire protocol', () => {
  let emu: IbmVpcEmulator;
  let token: string;
  const q = 'version=2025-12-16&generation=2';

  before(async () => {
    ({ emu } = await startEmulator());
    token = await rawToken(emu.iamEndpoint, emu.apiKey);
  });
  after(async () => {
    await emu.stop();
  });

  const get = (path: string, headers: Record<string, string> = { Authorization: `Bearer ${token}` }) =>
    fetch(`${emu.endpoint}${path}`, { headers });

  async function expectError(res: Response, status: number, code: string): Promise<VpcErrorBody> {
    expect(res.status).to.equal(status);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    const body = (await res.json()) as VpcErrorBody;
    expect(body.errors[0]?.code).to.equal(code);
    expect(body.errors[0]?.message).to.be.a('string').and.not.empty;
    expect(body.errors[0]?.more_info).to.match(/^https:\/\//);
    expect(body.trace).to.equal(res.headers.get('x-request-id'));
    return body;
  }

  describe('IAM token service', () => {
    it('issues a Bearer JWT with account.bss, iat and exp = iat + expires_in', async () => {
      const res = await fetch(`${emu.iamEndpoint}/identity/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `grant_type=urn%3Aibm%3Aparams%3Aoauth%3Agrant-type%3Aapikey&apikey=${encodeURIComponent(emu.apiKey)}&response_type=cloud_iam`,
      });
      expect(res.status).to.equal(200);
      const body = (await res.json()) as {
        access_token: string;
        token_type: string;
        expires_in: number;
        expiration: number;
      };
      expect(body).to.include({ token_type: 'Bearer', expires_in: 3600 });
      const claims = JSON.parse(Buffer.from(body.access_token.split('.')[1] ?? '', 'base64url').toString()) as {
        account: { bss: string };
        iat: number;
        exp: number;
      };
      expect(claims.account.bss).to.equal(emu.accountId);
      expect(claims.exp - claims.iat).to.equal(3600);
      expect(body.expiration).to.equal(claims.exp);
      expect(Math.abs(claims.iat - Date.now() / 1000), 'wall-clock seconds, as the SDK expects').to.be.lessThan(60);
    });

    it('refuses another API key, a missing key and another grant type in IAM error format', async () => {
      const ask = (form: Record<string, string>) =>
        fetch(`${emu.iamEndpoint}/identity/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(form).toString(),
        });
      const grant = 'urn:ibm:params:oauth:grant-type:apikey';
      const wrong = await ask({ grant_type: grant, apikey: 'wrong' });
      expect(wrong.status).to.equal(400);
      const body = (await wrong.json()) as {
        errorCode: string;
        errorMessage: string;
        context: { transactionId: string };
      };
      expect(body.errorCode).to.equal('BXNIM0415E');
      expect(body.context.transactionId).to.be.a('string');
      expect(((await (await ask({ grant_type: grant })).json()) as { errorCode: string }).errorCode).to.equal(
        'BXNIM0109E',
      );
      expect(
        ((await (await ask({ grant_type: 'password', apikey: emu.apiKey })).json()) as { errorCode: string }).errorCode,
      ).to.equal('BXNIM0103E');
      expect((await fetch(`${emu.iamEndpoint}/identity/token`)).status).to.equal(405);
    });

    it('takes API keys added and deleted at run time through the admin endpoint; tokens already issued stay valid', async () => {
      const admin = await startAdminServer({ routes: emu.adminRoutes });
      const call = async (method: AdminMethod, body?: unknown) => {
        const r = await callAdmin(admin.url, method, '/credentials', body);
        return { status: r.status, body: r.body as Record<string, unknown> };
      };
      const rotated = 'rotated-apikey-0123456789';
      try {
        const refused = await rawToken(emu.iamEndpoint, rotated).then(
          () => 'issued',
          (e: Error) => e.message,
        );
        expect(refused).to.contain('BXNIM0415E');
        const added = await call('POST', { apikey: rotated });
        expect(added.status).to.equal(201);
        expect(JSON.stringify(added.body), 'the key is never echoed').to.not.contain(rotated);
        const issued = await rawToken(emu.iamEndpoint, rotated);
        expect((await get(`/vpcs?${q}`, { Authorization: `Bearer ${issued}` })).status).to.equal(200);
        expect((await call('GET')).body.items).to.have.length(2);
        expect((await call('DELETE', { apikey: rotated })).status).to.equal(200);
        expect(
          await rawToken(emu.iamEndpoint, rotated).then(
            () => 'issued',
            (e: Error) => e.message,
          ),
        ).to.contain('BXNIM0415E');
        expect((await get(`/vpcs?${q}`, { Authorization: `Bearer ${issued}` })).status).to.equal(200);
        expect((await call('DELETE', { apikey: rotated })).status).to.equal(404);
        expect((await call('POST', {})).body).to.deep.equal({ error: 'apikey must be a non-empty string' });
      } finally {
        await admin.stop();
      }
    });
  });

  describe('VPC requests', () => {
    it('answer 401 with IBM error JSON without a valid bearer token', async () => {
      await expectError(await get(`/vpcs?${q}`, {}), 401, 'not_authorized');
      await expectError(await get(`/vpcs?${q}`, { Authorization: 'Bearer abc.def.ghi' }), 401, 'not_authorized');
      const [h, p] = token.split('.');
      const forged = `${h}.${p}.${Buffer.from('forged').toString('base64url')}`;
      await expectError(await get(`/vpcs?${q}`, { Authorization: `Bearer ${forged}` }), 401, 'not_authorized');
    });

    it('answer 401 for an expired token', async () => {
      const { emu: short } = await startEmulator({ tokenNowSeconds: () => 1_000_000 });
      try {
        const t = await rawToken(short.iamEndpoint, short.apiKey);
        const later = await startEmulator({ world: short.world, tokenNowSeconds: () => 1_000_000 + 3600 });
        try {
          await expectError(
            await fetch(`${later.emu.endpoint}/vpcs?${q}`, { headers: { Authorization: `Bearer ${t}` } }),
            401,
            'not_authorized',
          );
        } finally {
          await later.emu.stop();
        }
      } finally {
        await short.stop();
      }
    });

    it('require version=YYYY-MM-DD and generation=2', async () => {
      const missing = await expectError(await get('/vpcs?generation=2'), 400, 'missing_version');
      expect(missing.errors[0]?.target).to.deep.equal({ name: 'version', type: 'parameter' });
      await expectError(await get('/vpcs?version=2025-1-1&generation=2'), 400, 'invalid_version');
      await expectError(await get('/vpcs?version=2025-12-16'), 400, 'invalid_generation');
      await expectError(await get('/vpcs?version=2025-12-16&generation=1'), 400, 'invalid_generation');
      expect((await get(`/vpcs?${q}`)).status).to.equal(200);
    });

    it('page collections with limit 1–100 (default 50), first/next hrefs and total_count', async () => {
      const res = await get(`/subnets?${q}&limit=4`);
      const body = (await res.json()) as {
        limit: number;
        total_count: number;
        first: { href: string };
        next?: { href: string };
        subnets: { name: string }[];
      };
      expect(body.limit).to.equal(4);
      expect(body.total_count).to.equal(6);
      expect(body.subnets).to.have.length(4);
      expect(body.first.href).to.equal(`${emu.endpoint}/subnets?limit=4`);
      const start = new URL(body.next?.href ?? '').searchParams.get('start');
      const rest = (await (await get(`/subnets?${q}&limit=4&start=${start}`)).json()) as {
        next?: unknown;
        subnets: unknown[];
      };
      expect(rest.subnets).to.have.length(2);
      expect(rest.next).to.equal(undefined);
      expect(((await (await get(`/subnets?${q}`)).json()) as { limit: number }).limit).to.equal(50);
      await expectError(await get(`/subnets?${q}&limit=0`), 400, 'bad_parameter');
      await expectError(await get(`/subnets?${q}&limit=101`), 400, 'bad_parameter');
      await expectError(await get(`/subnets?${q}&start=bogus`), 400, 'bad_parameter');
      await expectError(await get(`/vpcs?${q}&start=${start}`), 400, 'bad_parameter');
    });

    it('answer unknown paths with 404 and wrong methods with 405, in IBM error JSON', async () => {
      await expectError(await get(`/floating_ips?${q}`), 404, 'not_found');
      await expectError(
        await fetch(`${emu.endpoint}/vpcs?${q}`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } }),
        405,
        'method_not_allowed',
      );
    });

    it('refuse a create body that is not JSON', async () => {
      const post = (body: string, type: string) =>
        fetch(`${emu.endpoint}/instances?${q}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'content-type': type },
          body,
        });
      await expectError(await post('{', 'application/json'), 400, 'invalid_body');
      await expectError(await post('name=x', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type');
      await expectError(await post('[]', 'application/json'), 400, 'bad_field');
    });

    it('refuse a body over the size limit with 413', async () => {
      const res = await fetch(`${emu.endpoint}/instances?${q}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ user_data: 'x'.repeat(1024 * 1024 + 1) }),
      });
      expect(res.status).to.equal(413);
    });
  });

  describe('Resource Manager', () => {
    it('lists resource groups in the v2 shape, filtered by account and name', async () => {
      const res = await fetch(
        `${emu.resourceManagerEndpoint}/v2/resource_groups?account_id=${emu.accountId}&name=Default`,
        {
          headers: { Authorization: `Bearer ${token}` },
        },
      );
      const body = (await res.json()) as { resources: Record<string, unknown>[] };
      expect(body.resources).to.have.length(1);
      expect(body.resources[0]).to.include({
        name: 'Default',
        default: true,
        state: 'ACTIVE',
        account_id: emu.accountId,
      });
      expect(body.resources[0]?.crn).to.match(/^crn:v1:bluemix:public:resource-controller::a\//);
    });
  });
});
