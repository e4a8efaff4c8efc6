// The emulators' admin endpoint: routes each emulator registers, JSON in and out, and clear refusals.
import { expect } from 'chai';
import {
  AdminRequestError,
  adminObject,
  adminString,
  callAdmin,
  credentialsAdminRoutes,
  startAdminServer,
  type AdminServer,
} from '../../../../sim/kit/index.js';

describe('emulator admin endpoint', () => {
  let admin: AdminServer;
  const keys = new Set<string>(['k1']);
  before(async () => {
    admin = await startAdminServer({
      routes: [
        ...credentialsAdminRoutes(
          {
            add: (b) => {
              keys.add(adminString(b, 'id'));
              return { id: b.id };
            },
            revoke: (b) => keys.delete(adminString(b, 'id')),
            list: () => [...keys].map((id) => ({ id })),
          },
          { add: '{"id"}', revoke: '{"id"}' },
        ),
        {
          method: 'POST',
          path: '/capacity',
          summary: 'another emulator control',
          handle: (b) => {
            const o = adminObject(b);
            if (o.zone === 'nowhere') throw new AdminRequestError(409, 'no zone nowhere');
            return { status: 204 };
          },
        },
      ],
    });
  });
  after(() => admin.stop());

  it('listens on loopback and lists its routes at GET /', async () => {
    expect(admin.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    const index = (await callAdmin(admin.url, 'GET', '/')).body as { routes: { method: string; path: string }[] };
    expect(index.routes.map((r) => `${r.method} ${r.path}`)).to.deep.equal([
      'GET /credentials',
      'POST /credentials',
      'DELETE /credentials',
      'POST /capacity',
    ]);
  });

  it('adds, lists and revokes credentials through the same three routes on every emulator', async () => {
    expect(await callAdmin(admin.url, 'POST', '/credentials', { id: 'k2' })).to.deep.equal({
      status: 201,
      body: { id: 'k2' },
    });
    expect((await callAdmin(admin.url, 'GET', '/credentials')).body).to.deep.equal({
      items: [{ id: 'k1' }, { id: 'k2' }],
    });
    expect(await callAdmin(admin.url, 'DELETE', '/credentials', { id: 'k2' })).to.deep.equal({
      status: 200,
      body: { revoked: true },
    });
    expect(await callAdmin(admin.url, 'DELETE', '/credentials', { id: 'k2' })).to.deep.equal({
      status: 404,
      body: { error: 'no such credential is known' },
    });
  });

  it('refuses bad requests naming what is wrong: field, body, path, method, and a route’s own refusal', async () => {
    expect((await callAdmin(admin.url, 'POST', '/credentials', { id: 7 })).body).to.deep.equal({
      error: 'id must be a non-empty string',
    });
    expect((await callAdmin(admin.url, 'POST', '/credentials', [1])).body).to.deep.equal({
      error: 'the request body must be a JSON object',
    });
    const notJson = await fetch(`${admin.url}/credentials`, { method: 'POST', body: '{' });
    expect(notJson.status).to.equal(400);
    expect(((await notJson.json()) as { error: string }).error).to.match(/^the request body is not JSON/);
    expect((await callAdmin(admin.url, 'GET', '/nope')).status).to.equal(404);
    const wrongMethod = await fetch(`${admin.url}/capacity`);
    expect([wrongMethod.status, wrongMethod.headers.get('allow')]).to.deep.equal([405, 'POST']);
    expect(await callAdmin(admin.url, 'POST', '/capacity', { zone: 'nowhere' })).to.deep.equal({
      status: 409,
      body: { error: 'no zone nowhere' },
    });
    expect((await callAdmin(admin.url, 'POST', '/capacity', {})).status).to.equal(204);
  });

  it('will not serve one route twice', async () => {
    const route = { method: 'GET' as const, path: '/x', summary: '', handle: () => ({ status: 200 }) };
    let err: unknown;
    await startAdminServer({ routes: [route, route] }).catch((e: unknown) => (err = e));
    expect((err as Error).message).to.equal('admin route GET /x is registered twice');
  });
});
