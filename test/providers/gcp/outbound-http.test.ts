import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { OutboundHttp, RealClock } from '../../../lib/index.js';
import { generateServingCert } from '../../../sim/apiserver/tls-cert.js';
import { startGceEmulator, type GceEmulator } from '../../../sim/gcp/index.js';
import { GcpClientFactory, type GcpCredentials } from '../../../providers/gcp/index.js';
import {
  startConnectProxy,
  startTlsFront,
  type ConnectProxy,
  type TlsFront,
} from '../../lib/cloud/outbound-test-kit.js';
import { PROJECT, ZONE } from './fixtures.js';

const KEY = {
  private_key_id: 'k1',
  private_key: generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString(),
  client_email: `machine-api@${PROJECT}.iam.gserviceaccount.com`,
};

/** A service-account key (which the emulator knows) whose token_uri is the emulator's OAuth endpoint. */
function serviceAccountKey(tokenUri: string): GcpCredentials {
  const json = { type: 'service_account', project_id: PROJECT, ...KEY, client_id: '1', token_uri: tokenUri };
  return { type: 'service_account', projectId: PROJECT, clientEmail: json.client_email, json };
}

describe('GCP clients behind a proxy and a custom CA', () => {
  let emu: GceEmulator;
  let front: TlsFront;
  let proxy: ConnectProxy;
  let factory: GcpClientFactory | undefined;

  beforeEach(async () => {
    emu = await startGceEmulator({ requireAuth: true, serviceAccountKeys: [KEY] });
    front = await startTlsFront(emu.port);
    proxy = await startConnectProxy();
  });
  afterEach(async () => {
    await factory?.close();
    factory = undefined;
    await proxy.stop();
    await front.stop();
    await emu.stop();
  });

  const compute = (outbound: OutboundHttp) => {
    factory = new GcpClientFactory({ clock: new RealClock(), endpoint: front.endpoint, outbound });
    return factory.get(serviceAccountKey(`${front.endpoint}/token`), 'ns/gcp-creds').compute;
  };

  it('sends the Compute calls (authenticated: the emulator requires a token) through HTTPS_PROXY, trusting the extra CA bundle', async () => {
    const api = compute(
      new OutboundHttp({
        proxyLoopback: true,
        httpsProxy: proxy.url,
        trustedCaBundles: [{ source: 'tls-ca-bundle.pem', pem: front.caPem }],
      }),
    );
    expect(await api.listInstances(PROJECT, ZONE, '')).to.deep.equal([]);
    expect(proxy.connects.length).to.be.at.least(1);
    expect(new Set(proxy.connects)).to.deep.equal(new Set([`127.0.0.1:${front.port}`]));
  });

  it('reaches endpoints NO_PROXY lists directly', async () => {
    const api = compute(
      new OutboundHttp({
        proxyLoopback: true,
        httpsProxy: proxy.url,
        noProxy: '127.0.0.1',
        trustedCaBundles: [{ source: 'tls-ca-bundle.pem', pem: front.caPem }],
      }),
    );
    await api.listInstances(PROJECT, ZONE, '');
    expect(proxy.connects).to.deep.equal([]);
  });

  it('fails with an error naming the CA bundle when it does not hold the endpoint’s CA', async () => {
    const source = '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem';
    const api = compute(
      new OutboundHttp({
        proxyLoopback: true,
        httpsProxy: proxy.url,
        trustedCaBundles: [{ source, pem: generateServingCert('other').certPem }],
      }),
    );
    // An insert, as gax does not retry it: a list would be retried as UNAVAILABLE for minutes.
    const err = await api.insertInstance(PROJECT, ZONE, { name: 'm-1' }, 'request-1').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Error);
    expect((err as Error).message)
      .to.contain(source)
      .and.contain('not signed by a trusted CA');
    expect(emu.instances()).to.deep.equal([]);
  });
});
