import { expect } from 'chai';
import { JWT, PassThroughClient } from 'google-auth-library';
import { FakeClock, type Secret } from '../../../lib/index.js';
import {
  CredentialsSecretError,
  GcpClientFactory,
  authOptions,
  credentialsFingerprint,
  credentialsFromSecret,
  gaxEndpointOptions,
  nameFilter,
  type ComputeApi,
  type GcpCredentials,
  type Instance,
} from '../../../providers/gcp/index.js';
import { clusterLabelKeysOf, clusterFilter } from '../../../providers/gcp/gcp-clients.js';
import { FAKE_SERVICE_ACCOUNT, NAMESPACE } from './fixtures.js';

const secret = (data: Record<string, string>): Secret => ({
  metadata: { namespace: NAMESPACE, name: 'gcp-cloud-credentials' },
  data,
});
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('GCP credentials Secret', () => {
  it('reads the project and client email from service_account.json', () => {
    const c = credentialsFromSecret(secret({ 'service_account.json': b64(JSON.stringify(FAKE_SERVICE_ACCOUNT)) }));
    expect(c).to.include({ projectId: 'test-project', clientEmail: FAKE_SERVICE_ACCOUNT.client_email });
  });

  it('names what is missing or malformed, and never echoes the key', () => {
    expect(() => credentialsFromSecret(secret({}))).to.throw(CredentialsSecretError, /service_account.json/);
    expect(() => credentialsFromSecret(secret({ 'service_account.json': b64('{not json') }))).to.throw(
      CredentialsSecretError,
      /not valid JSON/,
    );
    try {
      credentialsFromSecret(
        secret({ 'service_account.json': b64(JSON.stringify({ ...FAKE_SERVICE_ACCOUNT, type: 'authorized_user' })) }),
      );
      expect.fail('expected a rejection');
    } catch (err) {
      expect((err as Error).message)
        .to.contain('type "authorized_user" is not supported')
        .and.not.contain('PRIVATE KEY');
    }
  });

  it('accepts a key without project_id: the spec’s projectID names the project', () => {
    const c = credentialsFromSecret(
      secret({ 'service_account.json': b64(JSON.stringify({ ...FAKE_SERVICE_ACCOUNT, project_id: undefined })) }),
    );
    expect(c.projectId).to.equal(undefined);
    expect(c.type).to.equal('service_account');
  });

  describe('external_account (Workload Identity Federation)', () => {
    const wif = {
      type: 'external_account',
      audience: '//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/pool/providers/provider',
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      token_url: 'https://sts.googleapis.com/v1/token',
      service_account_impersonation_url:
        'https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/machine-api%40p.iam.gserviceaccount.com:generateAccessToken',
      credential_source: { file: '/var/run/secrets/openshift/serviceaccount/token', format: { type: 'text' } },
    };

    it('is accepted, acting as the impersonated service account, with no project of its own', () => {
      const c = credentialsFromSecret(secret({ 'service_account.json': b64(JSON.stringify(wif)) }));
      expect(c).to.include({
        type: 'external_account',
        clientEmail: 'machine-api@p.iam.gserviceaccount.com',
        projectId: undefined,
      });
    });

    it('names the field that is missing, and refuses sources that would run a program', () => {
      const parse = (o: object) => () =>
        credentialsFromSecret(secret({ 'service_account.json': b64(JSON.stringify(o)) }));
      expect(parse({ ...wif, audience: undefined })).to.throw(
        CredentialsSecretError,
        /\(external_account\) has no audience/,
      );
      expect(parse({ ...wif, token_url: '' })).to.throw(CredentialsSecretError, /has no token_url/);
      expect(parse({ ...wif, credential_source: { executable: { command: '/bin/true' } } })).to.throw(
        CredentialsSecretError,
        /must name a file or url/,
      );
    });
  });

  it('fingerprints credentials so changed keys get new clients', () => {
    const a = credentialsFromSecret(secret({ 'service_account.json': b64(JSON.stringify(FAKE_SERVICE_ACCOUNT)) }));
    const b = credentialsFromSecret(
      secret({ 'service_account.json': b64(JSON.stringify({ ...FAKE_SERVICE_ACCOUNT, private_key_id: 'other' })) }),
    );
    expect(credentialsFingerprint(a)).to.not.equal(credentialsFingerprint(b));
    expect(credentialsFingerprint(a)).to.not.contain('PRIVATE');
  });
});

describe('GCP client factory', () => {
  const creds = (id: string): GcpCredentials => ({
    type: 'service_account',
    projectId: 'p',
    clientEmail: 'e',
    json: { private_key_id: id },
  });

  it('sends credentials over plain http only to this host, and only the Secret key; the Secret key otherwise', () => {
    expect(authOptions('http://127.0.0.1:1234', creds('a')).authClient, 'an emulator on loopback').to.be.instanceOf(
      JWT,
    );
    expect(authOptions('http://localhost:1234', creds('a')).authClient).to.be.instanceOf(JWT);
    expect(authOptions('http://10.0.0.5:1234', creds('a')).authClient, 'another host').to.be.instanceOf(
      PassThroughClient,
    );
    expect(authOptions('http://127.0.0.1:1234', undefined).authClient, 'no Secret: no ADC').to.be.instanceOf(
      PassThroughClient,
    );
    const wif: GcpCredentials = { ...creds('a'), type: 'external_account' };
    expect(authOptions('http://127.0.0.1:1234', wif).authClient, 'no token exchange for plain http').to.be.instanceOf(
      PassThroughClient,
    );
    expect(authOptions('https://compute.example', creds('a'))).to.deep.equal({
      credentials: { private_key_id: 'a' },
      projectId: 'p',
    });
    expect(authOptions(undefined, undefined)).to.deep.equal({});
  });

  it('splits an endpoint URL into the host, port and protocol gax wants', () => {
    expect(gaxEndpointOptions('http://127.0.0.1:8080')).to.deep.equal({
      apiEndpoint: '127.0.0.1',
      port: 8080,
      protocol: 'http',
    });
    expect(gaxEndpointOptions('https://compute.example')).to.deep.equal({
      apiEndpoint: 'compute.example',
      port: 443,
      protocol: 'https',
    });
    expect(gaxEndpointOptions(undefined)).to.deep.equal({});
  });

  it('builds an exact-name OR filter', () => {
    expect(nameFilter(['a', 'b"x'])).to.equal('(name = "a") OR (name = "bx")');
  });

  it('caches clients per credentials and replaces them when the Secret changes', () => {
    const built: string[] = [];
    const f = new GcpClientFactory({
      clock: new FakeClock(),
      createComputeApi: (c) => (built.push(String(c?.json.private_key_id)), {} as ComputeApi),
    });
    const first = f.get(creds('a'), 'ns/s');
    expect(f.get(creds('a'), 'ns/s')).to.equal(first);
    expect(f.get(creds('b'), 'ns/s')).to.not.equal(first);
    expect(built).to.deep.equal(['a', 'b']);
  });

  it('coalesces concurrent look-ups in a zone into one list call', async () => {
    const clock = new FakeClock();
    const filters: string[] = [];
    const compute = {
      listInstances: async (_p: string, _z: string, filter: string) => {
        filters.push(filter);
        return [{ name: 'm1' }, { name: 'm2' }];
      },
    } as unknown as ComputeApi;
    const f = new GcpClientFactory({ clock, batchWindowMs: 5, createComputeApi: () => compute });
    const c = f.get(undefined);
    const pending = Promise.all(['m1', 'm2', 'm3'].map((n) => c.findInstance('p', 'z', n)));
    clock.step(5);
    const [a, b, missing] = await pending;
    expect(a?.name).to.equal('m1');
    expect(b?.name).to.equal('m2');
    expect(missing).to.equal(undefined);
    expect(filters).to.deep.equal(['(name = "m1") OR (name = "m2") OR (name = "m3")']);
  });

  it("reads the cluster ownership labels of an instance, and ORs them for a burst's listing", () => {
    const owned: Instance = {
      name: 'm1',
      labels: { 'kubernetes-io-cluster-c1': 'owned', 'kubernetes-io-cluster-c2': 'shared', role: 'worker' },
    };
    expect(clusterLabelKeysOf(owned)).to.deep.equal(['kubernetes-io-cluster-c1']);
    expect(clusterLabelKeysOf({ name: 'bare' })).to.deep.equal([]);
    expect(clusterFilter(['kubernetes-io-cluster-c1', 'kubernetes-io-cluster-c2'])).to.equal(
      '(labels.kubernetes-io-cluster-c1 = "owned") OR (labels.kubernetes-io-cluster-c2 = "owned")',
    );
  });

  describe('existence checks in a resync burst', () => {
    const owned = (name: string): Instance => ({
      name,
      status: 'RUNNING',
      labels: { 'kubernetes-io-cluster-c1': 'owned' },
    });

    /** A zone holding instances m0..m(n-1) of cluster c1 and one of another cluster, filtered as GCE would. */
    function setup(n: number) {
      const clock = new FakeClock();
      const zone = new Map<string, Instance>(Array.from({ length: n }, (_, i) => [`m${i}`, owned(`m${i}`)]));
      zone.set('foreign', { name: 'foreign', labels: { 'kubernetes-io-cluster-c2': 'owned' } });
      const filters: string[] = [];
      const deleted: string[] = [];
      const compute = {
        listInstances: async (_p: string, _z: string, filter: string) => {
          filters.push(filter);
          const names = [...filter.matchAll(/name = "([^"]+)"/g)].map((m) => m[1]);
          const labels = [...filter.matchAll(/labels\.([\w-]+) = "owned"/g)].map((m) => m[1] ?? '');
          return [...zone.values()].filter(
            (i) => names.includes(i.name ?? '') || labels.some((l) => i.labels?.[l] === 'owned'),
          );
        },
        deleteInstance: async (_p: string, _z: string, name: string) => {
          deleted.push(name);
          zone.delete(name);
          return { name: 'op' };
        },
      } as unknown as ComputeApi;
      const clients = new GcpClientFactory({ clock, batchWindowMs: 5, createComputeApi: () => compute }).get(undefined);
      const check = async (...names: string[]) => {
        const pending = Promise.all(names.map((n) => clients.findInstance('p', 'z', n)));
        await new Promise((r) => setImmediate(r));
        clock.step(5);
        return (await pending).map((i) => i?.name);
      };
      return { clock, zone, filters, deleted, clients, check };
    }

    it('lists every instance of the clusters it has seen once, and answers the other Machines from that list', async () => {
      const { clock, filters, check } = setup(20);
      await check('m0');
      expect(await check('m1', 'm2', 'm3', 'm4')).to.deep.equal(['m1', 'm2', 'm3', 'm4']);
      for (let i = 5; i < 20; i++) expect(await check(`m${i}`)).to.deep.equal([`m${i}`]);
      expect(filters).to.deep.equal(['(name = "m0")', '(labels.kubernetes-io-cluster-c1 = "owned")']);
      clock.step(1_001);
      expect(await check('foreign')).to.deep.equal(['foreign'], 'an instance of another cluster is looked up by name');
      expect(await check('m5')).to.deep.equal(['m5'], 'a second check of the same Machine reads afresh');
      expect(filters.slice(2)).to.deep.equal(['(name = "foreign")', '(name = "m5")']);
    });

    it('forgets an instance deleted through the clients, so the next check does not see it from the list', async () => {
      const { filters, deleted, clients, check } = setup(6);
      await check('m0');
      await check('m1', 'm2', 'm3', 'm4');
      await clients.compute.deleteInstance('p', 'z', 'm5', 'req-1');
      expect(deleted).to.deep.equal(['m5']);
      expect(await check('m5')).to.deep.equal([undefined]);
      expect(filters.at(-1)).to.equal('(name = "m5")');
    });
  });
});
