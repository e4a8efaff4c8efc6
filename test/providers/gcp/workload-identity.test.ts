// Workload Identity Federation as a short-lived-credential cluster runs it: the credentials Secret holds an
// external_account file whose subject token is the bound service-account token file, exchanged at STS and then
// used to impersonate a service account; the Compute calls carry the impersonated token.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OutboundHttp, RealClock, type Secret } from '../../../lib/index.js';
import { startGceEmulator, type GceEmulator } from '../../../sim/gcp/index.js';
import { createGcpActuator, credentialsFromSecret, GcpClientFactory } from '../../../providers/gcp/index.js';
import { projectOf } from '../../../providers/gcp/machine-scope.js';
import {
  startConnectProxy,
  startTlsFront,
  type ConnectProxy,
  type TlsFront,
} from '../../lib/cloud/outbound-test-kit.js';
import {
  CLUSTER_ID,
  defaultSecrets,
  gcpSpec,
  machine,
  NAMESPACE,
  PROJECT,
  recordingContext,
  secretsClient,
  ZONE,
} from './fixtures.js';

describe('GCP Workload Identity Federation (external_account credentials)', () => {
  let emu: GceEmulator;
  let front: TlsFront;
  let proxy: ConnectProxy;
  let dir: string;
  let factory: GcpClientFactory | undefined;

  beforeEach(async () => {
    emu = await startGceEmulator({
      requireAuth: true,
      clusterId: CLUSTER_ID,
      bootDelayMs: 20,
      deleteDelayMs: 20,
      stopDelayMs: 20,
    });
    front = await startTlsFront(emu.port);
    proxy = await startConnectProxy();
    dir = mkdtempSync(join(tmpdir(), 'wif-'));
  });
  afterEach(async () => {
    await factory?.close();
    factory = undefined;
    await proxy.stop();
    await front.stop();
    await emu.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function wifSecret(): Secret {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQifQ.c2ln');
    const file = {
      type: 'external_account',
      audience: '//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/pool/providers/provider',
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      token_url: `${front.endpoint}/v1/token`,
      service_account_impersonation_url: `${front.endpoint}/v1/projects/-/serviceAccounts/machine-api@${PROJECT}.iam.gserviceaccount.com:generateAccessToken`,
      credential_source: { file: tokenFile, format: { type: 'text' } },
    };
    return {
      metadata: { namespace: NAMESPACE, name: 'gcp-cloud-credentials' },
      data: { 'service_account.json': Buffer.from(JSON.stringify(file)).toString('base64') },
    };
  }

  it('exchanges the bound token at STS, impersonates the service account, and calls Compute with that token, all through the proxy', async () => {
    const credentials = credentialsFromSecret(wifSecret());
    factory = new GcpClientFactory({
      clock: new RealClock(),
      endpoint: front.endpoint,
      outbound: new OutboundHttp({
        proxyLoopback: true,
        httpsProxy: proxy.url,
        trustedCaBundles: [{ source: 'tls-ca-bundle.pem', pem: front.caPem }],
      }),
    });
    const { compute } = factory.get(credentials, `${NAMESPACE}/gcp-cloud-credentials`);
    expect(await compute.listInstances(PROJECT, ZONE, '')).to.deep.equal([]);
    expect(await compute.listInstances(PROJECT, ZONE, '')).to.deep.equal([]);
    expect(emu.tokens.calls).to.deep.include({ stsExchange: 1, impersonation: 1 });
    expect(new Set(proxy.connects)).to.deep.equal(new Set([`127.0.0.1:${front.port}`]));
  });

  it('names the project from spec.projectID, as the file has none', () => {
    const credentials = credentialsFromSecret(wifSecret());
    expect(projectOf({ projectID: 'from-spec' } as Parameters<typeof projectOf>[0], credentials, undefined)).to.equal(
      'from-spec',
    );
    expect(() => projectOf({} as Parameters<typeof projectOf>[0], credentials, undefined)).to.throw(
      /projectID: Required value/,
    );
  });

  it('creates a Machine’s instance and sees it through the actuator with only the external_account Secret and spec.projectID', async () => {
    factory = new GcpClientFactory({
      clock: new RealClock(),
      endpoint: front.endpoint,
      outbound: new OutboundHttp({ trustedCaBundles: [{ source: 'tls-ca-bundle.pem', pem: front.caPem }] }),
    });
    const secrets = defaultSecrets().map((s) => (s.metadata.name === 'gcp-cloud-credentials' ? wifSecret() : s));
    const actuator = createGcpActuator({
      client: secretsClient(secrets),
      clock: new RealClock(),
      clientFactory: factory,
      requeueAfterMs: 50,
    });
    try {
      const m = machine('wif-worker-1', gcpSpec({ projectID: PROJECT }));
      await actuator.create(m, recordingContext());
      expect(emu.instance('wif-worker-1')).to.not.equal(undefined);
      expect(await actuator.exists(m, recordingContext())).to.equal(true);
      expect(emu.tokens.calls).to.deep.include({ stsExchange: 1, impersonation: 1 });
    } finally {
      await actuator.close();
    }
  });
});
