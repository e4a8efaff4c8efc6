import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidProxyUrlError } from '../../../lib/index.js';
import { generateServingCert } from '../../../sim/apiserver/tls-cert.js';
import { outboundHttpFromEnv, TrustedCaBundleError } from '../../../cmd/internal/index.js';

describe('cloud clients’ proxy and CA settings from the environment', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outbound-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads HTTPS_PROXY, HTTP_PROXY and NO_PROXY in either case (upper case first, as Go does) and bypasses NO_PROXY hosts', () => {
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, generateServingCert('ca').certPem);
    const out = outboundHttpFromEnv(
      {
        HTTPS_PROXY: 'http://upper:3128',
        https_proxy: 'http://lower:3128',
        http_proxy: 'http://plain:3128',
        no_proxy: '.internal,10.0.0.0/8',
      },
      ca,
    );
    expect(out.proxyFor('https://ec2.us-east-1.amazonaws.com')?.host).to.equal('upper:3128');
    expect(out.proxyFor('http://example.com')?.host).to.equal('plain:3128');
    expect(out.proxyFor('https://api.cluster.internal')).to.equal(undefined);
    expect(out.proxyFor('https://10.1.2.3')).to.equal(undefined);
    expect(out.describe().trustedCaBundles).to.deep.equal([ca]);
  });

  it('adds the extra bundles (the cloud-provider config’s) after the trusted CA bundle', () => {
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, generateServingCert('ca').certPem);
    const extra = {
      source: 'ca-bundle.pem of ConfigMap openshift-config-managed/kube-cloud-config',
      pem: generateServingCert('x').certPem,
    };
    expect(outboundHttpFromEnv({}, ca, [extra]).trustSources).to.deep.equal([ca, extra.source]);
  });

  it('fails naming the flag and path when --trusted-ca-bundle cannot be read or holds no certificate', () => {
    expect(() => outboundHttpFromEnv({}, join(dir, 'missing.pem'))).to.throw(
      TrustedCaBundleError,
      /--trusted-ca-bundle .*missing\.pem: cannot read the CA bundle \(ENOENT\)/,
    );
    const junk = join(dir, 'junk.pem');
    writeFileSync(junk, 'not a certificate');
    expect(() => outboundHttpFromEnv({}, junk)).to.throw(TrustedCaBundleError, /junk\.pem: holds no PEM certificate/);
  });

  it('fails naming the variable for an unusable proxy URL', () => {
    expect(() => outboundHttpFromEnv({ https_proxy: 'socks5://p:1080' }, undefined)).to.throw(
      InvalidProxyUrlError,
      /^HTTPS_PROXY:/,
    );
  });
});
