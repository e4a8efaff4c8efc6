import { expect } from 'chai';
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  InvalidProxyUrlError,
  OutboundHttp,
  ProxyTunnelError,
  UntrustedServerCertificateError,
  type OutboundAgents,
} from '../../../lib/index.js';
import { generateServingCert } from '../../../sim/apiserver/tls-cert.js';
import { startConnectProxy, startTlsFront, type ConnectProxy, type TlsFront } from './outbound-test-kit.js';

function fetchText(url: string, agents: OutboundAgents): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { agent: agents.forUrl(url) }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

describe('OutboundHttp (proxy and trusted CAs for every cloud client)', () => {
  let backend: Server;
  let backendPort: number;
  let front: TlsFront;
  let proxy: ConnectProxy;
  const agents: OutboundAgents[] = [];
  const agentsOf = (o: OutboundHttp) => {
    const a = o.newAgents();
    agents.push(a);
    return a;
  };

  beforeEach(async () => {
    backend = createServer((_req, res) => res.end('hello'));
    await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
    backendPort = (backend.address() as AddressInfo).port;
    front = await startTlsFront(backendPort);
    proxy = await startConnectProxy();
  });
  afterEach(async () => {
    for (const a of agents.splice(0)) a.destroy();
    await proxy.stop();
    await front.stop();
    backend.closeAllConnections();
    await new Promise<void>((r) => backend.close(() => r()));
  });

  const trusted = () => [{ source: '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem', pem: front.caPem }];

  it('tunnels https through HTTPS_PROXY and verifies the server against the extra CA bundle', async () => {
    const out = new OutboundHttp({ proxyLoopback: true, httpsProxy: proxy.url, trustedCaBundles: trusted() });
    expect(await fetchText(`${front.endpoint}/`, agentsOf(out))).to.equal('hello');
    expect(proxy.connects).to.deep.equal([`127.0.0.1:${front.port}`]);
  });

  it('reuses a tunnelled connection for the next request (keep-alive)', async () => {
    const out = new OutboundHttp({ proxyLoopback: true, httpsProxy: proxy.url, trustedCaBundles: trusted() });
    const a = agentsOf(out);
    await fetchText(`${front.endpoint}/a`, a);
    await fetchText(`${front.endpoint}/b`, a);
    expect(proxy.connects).to.have.length(1);
  });

  it('goes direct to a host NO_PROXY names', async () => {
    const out = new OutboundHttp({
      proxyLoopback: true,
      httpsProxy: proxy.url,
      noProxy: 'example.com,127.0.0.1',
      trustedCaBundles: trusted(),
    });
    expect(out.proxyFor(front.endpoint)).to.equal(undefined);
    expect(await fetchText(`${front.endpoint}/`, agentsOf(out))).to.equal('hello');
    expect(proxy.connects).to.deep.equal([]);
  });

  it('uses HTTP_PROXY for http:// endpoints and HTTPS_PROXY for https:// ones', async () => {
    const out = new OutboundHttp({ proxyLoopback: true, httpProxy: proxy.url });
    expect(await fetchText(`http://127.0.0.1:${backendPort}/`, agentsOf(out))).to.equal('hello');
    expect(proxy.connects).to.deep.equal([`127.0.0.1:${backendPort}`]);
    expect(out.proxyFor(front.endpoint)).to.equal(undefined, 'no HTTPS_PROXY set');
  });

  it('sends the proxy credentials of the URL as Proxy-Authorization and never shows them', async () => {
    const withCreds = proxy.url.replace('http://', 'http://user:s3cr%40t@');
    const out = new OutboundHttp({ proxyLoopback: true, httpsProxy: withCreds, trustedCaBundles: trusted() });
    await fetchText(`${front.endpoint}/`, agentsOf(out));
    expect(proxy.authorizations).to.deep.equal([`Basic ${Buffer.from('user:s3cr@t').toString('base64')}`]);
    expect(JSON.stringify(out.describe())).to.not.contain('s3cr');
  });

  it('fails with UntrustedServerCertificateError naming the CA sources when the bundle lacks the server CA', async () => {
    const wrong = generateServingCert('some-other-ca');
    const out = new OutboundHttp({
      proxyLoopback: true,
      httpsProxy: proxy.url,
      trustedCaBundles: [{ source: 'ca-bundle.pem of openshift-config-managed/kube-cloud-config', pem: wrong.certPem }],
    });
    const err = await fetchText(`${front.endpoint}/`, agentsOf(out)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(UntrustedServerCertificateError);
    const e = err as UntrustedServerCertificateError;
    expect(e.server).to.equal(`127.0.0.1:${front.port}`);
    expect(e.message)
      .to.contain('ca-bundle.pem of openshift-config-managed/kube-cloud-config')
      .and.contain('system CAs');
  });

  it('says when no extra CA bundle is configured at all', async () => {
    const err = await fetchText(`${front.endpoint}/`, agentsOf(new OutboundHttp())).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(UntrustedServerCertificateError);
    expect((err as Error).message).to.contain('no extra CA bundle is configured');
  });

  it('reports a proxy that refuses the tunnel as ProxyTunnelError with its status', async () => {
    const out = new OutboundHttp({ proxyLoopback: true, httpsProxy: proxy.url, trustedCaBundles: trusted() });
    const err = await fetchText('https://not-loopback.example:443/', agentsOf(out)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ProxyTunnelError);
    expect((err as ProxyTunnelError).status).to.equal(403);
  });

  it('rejects a proxy URL it cannot use, naming the variable and not echoing the value', () => {
    expect(() => new OutboundHttp({ httpsProxy: 'socks5://user:pw@proxy:1080' }))
      .to.throw(InvalidProxyUrlError, /^HTTPS_PROXY: unsupported proxy scheme "socks5"/)
      .with.property('message')
      .that.does.not.contain('pw');
    expect(() => new OutboundHttp({ httpProxy: 'http://' })).to.throw(InvalidProxyUrlError, /^HTTP_PROXY:/);
  });

  it('never proxies loopback unless asked, as Go’s net/http', async () => {
    const out = new OutboundHttp({ httpsProxy: proxy.url, httpProxy: proxy.url, trustedCaBundles: trusted() });
    expect(out.proxyFor('https://localhost:8443')).to.equal(undefined);
    expect(out.proxyFor('http://[::1]:80')).to.equal(undefined);
    expect(await fetchText(`${front.endpoint}/`, agentsOf(out))).to.equal('hello');
    expect(proxy.connects).to.deep.equal([]);
    expect(out.proxyFor('https://ec2.us-east-1.amazonaws.com')?.href).to.equal(`${proxy.url}/`);
  });

  it('takes a proxy without a scheme as http://, as Go and curl do', () => {
    const out = new OutboundHttp({ httpsProxy: 'proxy.example:3128' });
    expect(out.proxyFor('https://ec2.us-east-1.amazonaws.com')?.href).to.equal('http://proxy.example:3128/');
  });
});
