// The local control plane keeps idle kept-alive connections as long as kube-apiserver does (90 s), longer
// than our clients keep theirs, on plain HTTP and on HTTPS alike, and tells clients so in Keep-Alive.
import { expect } from 'chai';
import { ClientIdleTimeoutMs, ServerIdleTimeoutMs } from '../../../lib/base/http-keep-alive.js';
import { raw, startEnv, type Env } from './helpers.js';

describe('envtest: kept-alive connections', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(async () => env.cp.stop());

  it('keeps idle connections 90 s over HTTP and HTTPS, longer than our clients keep theirs', async () => {
    expect(ServerIdleTimeoutMs).to.equal(90_000).and.be.greaterThan(ClientIdleTimeoutMs);
    for (const tls of [false, true]) {
      const r = await raw(env.cp, 'GET', '/api/v1/namespaces', { tls, headers: { connection: 'keep-alive' } });
      expect(r.status).to.equal(200);
      expect(r.headers['keep-alive'], tls ? 'https' : 'http').to.equal('timeout=90');
    }
  });
});
