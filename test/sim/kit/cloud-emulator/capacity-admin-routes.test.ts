// The emulators' POST /capacity and /interrupt, served by the admin endpoint over loopback HTTP.
import { expect } from 'chai';
import {
  capacityAdminRoutes,
  startAdminServer,
  type AdminServer,
  type CapacityMarket,
} from '../../../../sim/kit/cloud-emulator/index.js';

describe('capacity admin routes', () => {
  let server: AdminServer;
  const calls: unknown[][] = [];
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  before(async () => {
    server = await startAdminServer({
      routes: capacityAdminRoutes({
        typeField: 'instanceType',
        markets: ['on-demand', 'spot'],
        setCapacity: (...args: [string, string, CapacityMarket | '*', boolean]) => void calls.push(args),
        interrupt: (id) => {
          if (id !== 'i-1') throw new Error(`no instance ${id}`);
          calls.push(['interrupt', id]);
        },
      }),
    });
  });
  after(() => server.stop());
  beforeEach(() => (calls.length = 0));

  it('turns capacity off for a type in a zone and market, every zone and market by default', async () => {
    expect(
      (await post('/capacity', { instanceType: 'm5.large', zone: 'us-east-1a', market: 'spot', available: false }))
        .status,
    ).to.equal(200);
    await post('/capacity', { instanceType: 'm5.large', available: true });
    expect(calls).to.deep.equal([
      ['m5.large', 'us-east-1a', 'spot', false],
      ['m5.large', '*', '*', true],
    ]);
  });

  it('refuses a body without the type or with an unknown market, naming the field', async () => {
    expect((await post('/capacity', { zone: 'a', available: true })).body.error).to.contain('instanceType');
    const res = await post('/capacity', { instanceType: 't', market: 'reserved', available: true });
    expect(res.status).to.equal(400);
    expect(res.body.error).to.contain('market must be one of "*", "on-demand", "spot"');
    expect((await post('/capacity', { instanceType: 't' })).body.error).to.contain('available');
    expect(calls).to.deep.equal([]);
  });

  it('interrupts an instance it holds, and answers 404 for one it does not', async () => {
    expect((await post('/interrupt', { instanceId: 'i-1' })).status).to.equal(202);
    expect((await post('/interrupt', { instanceId: 'i-2' })).status).to.equal(404);
    expect(calls).to.deep.equal([['interrupt', 'i-1']]);
  });

  it('offers no /interrupt and only "*" where the cloud has no spot market', async () => {
    const ibm = capacityAdminRoutes({ typeField: 'profile', markets: [], setCapacity: () => {} });
    expect(ibm.map((r) => r.path)).to.deep.equal(['/capacity']);
    expect(() => ibm[0]!.handle({ profile: 'bx2-2x8', market: 'spot', available: false })).to.throw(
      'market must be one of "*"',
    );
  });
});
