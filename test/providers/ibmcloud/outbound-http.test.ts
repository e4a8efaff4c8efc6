import { expect } from 'chai';
import { OutboundHttp, RealClock } from '../../../lib/index.js';
import { generateServingCert } from '../../../sim/apiserver/tls-cert.js';
import { startIbmVpcEmulator, type IbmVpcEmulator } from '../../../sim/ibmcloud/index.js';
import { IAM_TOKEN_ACTION } from '../../../sim/ibmcloud/routes.js';
import { IbmClientFactory } from '../../../providers/ibmcloud/index.js';
import {
  startConnectProxy,
  startTlsFront,
  type ConnectProxy,
  type TlsFront,
} from '../../lib/cloud/outbound-test-kit.js';

describe('IBM Cloud clients behind a proxy and a custom CA', () => {
  let emu: IbmVpcEmulator;
  let front: TlsFront;
  let proxy: ConnectProxy;

  beforeEach(async () => {
    emu = await startIbmVpcEmulator();
    front = await startTlsFront(Number(new URL(emu.endpoint).port));
    proxy = await startConnectProxy();
  });
  afterEach(async () => {
    await proxy.stop();
    await front.stop();
    await emu.stop();
  });

  const factory = (outbound: OutboundHttp) =>
    new IbmClientFactory({
      clock: new RealClock(),
      outbound,
      retry: { retries: 0 },
      endpoints: {
        vpc: `${front.endpoint}/v1`,
        iam: front.endpoint,
        resourceManager: front.endpoint,
        globalTagging: front.endpoint,
      },
    });

  it('sends the IAM token request and the VPC calls through HTTPS_PROXY, trusting the extra CA bundle', async () => {
    const f = factory(
      new OutboundHttp({
        proxyLoopback: true,
        httpsProxy: proxy.url,
        trustedCaBundles: [{ source: 'tls-ca-bundle.pem', pem: front.caPem }],
      }),
    );
    const clients = await f.get(emu.apiKey, emu.region, 'ns/creds');
    expect(await clients.profiles()).to.not.be.empty;
    expect(emu.knobs.counts(IAM_TOKEN_ACTION).total).to.equal(1);
    expect(proxy.connects.length).to.be.at.least(1);
    expect(new Set(proxy.connects)).to.deep.equal(new Set([`127.0.0.1:${front.port}`]));
  });

  it('reaches endpoints NO_PROXY lists directly', async () => {
    const f = factory(
      new OutboundHttp({
        proxyLoopback: true,
        httpsProxy: proxy.url,
        noProxy: '127.0.0.1',
        trustedCaBundles: [{ source: 'tls-ca-bundle.pem', pem: front.caPem }],
      }),
    );
    const clients = await f.get(emu.apiKey, emu.region, 'ns/creds');
    await clients.profiles();
    expect(proxy.connects).to.deep.equal([]);
  });

  it('fails the token request with an error naming the CA bundle when it does not hold the endpoint’s CA', async () => {
    const source = '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem';
    const f = factory(
      new OutboundHttp({
        proxyLoopback: true,
        httpsProxy: proxy.url,
        trustedCaBundles: [{ source, pem: generateServingCert('other').certPem }],
      }),
    );
    const clients = await f.get(emu.apiKey, emu.region, 'ns/creds');
    const err = await clients.profiles().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Error);
    expect((err as Error).message)
      .to.contain(source)
      .and.contain('not signed by a trusted CA');
    expect(emu.knobs.counts(IAM_TOKEN_ACTION).total).to.equal(0);
  });
});
