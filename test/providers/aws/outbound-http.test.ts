import { expect } from 'chai';
import { OutboundHttp, RealClock, UntrustedServerCertificateError } from '../../../lib/index.js';
import { generateServingCert } from '../../../sim/apiserver/tls-cert.js';
import { EMULATOR_ACCESS_KEY, startEc2Emulator, type Ec2Emulator } from '../../../sim/aws/index.js';
import { AwsClientFactory } from '../../../providers/aws/index.js';
import {
  startConnectProxy,
  startTlsFront,
  type ConnectProxy,
  type TlsFront,
} from '../../lib/cloud/outbound-test-kit.js';
import './fixtures.js';

describe('AWS clients behind a proxy and a custom CA', () => {
  let emu: Ec2Emulator;
  let front: TlsFront;
  let proxy: ConnectProxy;
  let factory: AwsClientFactory | undefined;
  const creds = { ...EMULATOR_ACCESS_KEY };

  beforeEach(async () => {
    emu = await startEc2Emulator();
    front = await startTlsFront(Number(new URL(emu.endpoint).port));
    proxy = await startConnectProxy();
  });
  afterEach(async () => {
    factory?.destroy();
    factory = undefined;
    await proxy.stop();
    await front.stop();
    await emu.stop();
  });

  const clients = (outbound: OutboundHttp) => {
    factory = new AwsClientFactory({ clock: new RealClock(), endpoint: front.endpoint, outbound, maxAttempts: 1 });
    return factory.get('us-east-1', creds).ec2;
  };

  it('sends every EC2 call through HTTPS_PROXY and trusts the server through the extra CA bundle', async () => {
    const ec2 = clients(
      new OutboundHttp({
        proxyLoopback: true,
        httpsProxy: proxy.url,
        trustedCaBundles: [{ source: 'tls-ca-bundle.pem', pem: front.caPem }],
      }),
    );
    const vpcs = await ec2.describeVpcs([]);
    expect(vpcs).to.not.be.empty;
    expect(proxy.connects).to.include(`127.0.0.1:${front.port}`);
    expect(emu.knobs.counts('DescribeVpcs').total).to.equal(1);
  });

  it('reaches an endpoint NO_PROXY lists directly', async () => {
    const ec2 = clients(
      new OutboundHttp({
        proxyLoopback: true,
        httpsProxy: proxy.url,
        noProxy: '127.0.0.0/8',
        trustedCaBundles: [{ source: 'tls-ca-bundle.pem', pem: front.caPem }],
      }),
    );
    await ec2.describeVpcs([]);
    expect(proxy.connects).to.deep.equal([]);
  });

  it('fails with an error naming the CA bundle when it does not hold the endpoint’s CA', async () => {
    const ec2 = clients(
      new OutboundHttp({
        proxyLoopback: true,
        httpsProxy: proxy.url,
        trustedCaBundles: [
          { source: '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem', pem: generateServingCert('other').certPem },
        ],
      }),
    );
    const err = await ec2.describeVpcs([]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(UntrustedServerCertificateError);
    expect((err as Error).message).to.contain('/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem');
    expect(emu.knobs.counts('DescribeVpcs').total).to.equal(0);
  });
});
