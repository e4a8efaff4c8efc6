import { expect } from 'chai';
import { PassThroughClient } from 'google-auth-library';
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
} from '../../../providers/gcp/index.js';
import { FAKE_SERVICE_ACCOUNT, NAMESPACE } from './fixtures.js';

const secret = (data: Record<string, string>): Secret => ({ metadata: { namespace: NAMESPACE, name: 'gcp-cloud-credentials' }, data });
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('GCP credentials Secret', () => {
  it('reads the project and client email from service_account.json', () => {
    const c = credentialsFromSecret(secret({ 'service_account.json': b64(JSON.stringify(FAKE_SERVICE_ACCOUNT)) }));
    expect(c).to.include({ projectId: 'test-project', clientEmail: FAKE_SERVICE_ACCOUNT.client_email });
  });

  it('names what is missing or malformed, and never echoes the key', () => {
    expect(() => credentialsFromSecret(secret({}))).to.throw(CredentialsSecretError, /service_account.json/);
    expect(() => credentialsFromSecret(secret({ 'service_account.json': b64('{not json') }))).to.throw(CredentialsSecretError, /not valid JSON/);
    try {
      credentialsFromSecret(secret({ 'service_account.json': b64(JSON.stringify({ ...FAKE_SERVICE_ACCOUNT, project_id: '' })) }));
      expect.fail('expected a rejection');
    } catch (err) {
      expect((err as Error).message).to.contain('project_id').and.not.contain('PRIVATE KEY');
    }
  });

  it('fingerprints credentials so changed keys get new clients', () => {
    const a = credentialsFromSecret(secret({ 'service_account.json': b64(JSON.stringify(FAKE_SERVICE_ACCOUNT)) }));
    const b = credentialsFromSecret(secret({ 'service_account.json': b64(JSON.stringify({ ...FAKE_SERVICE_ACCOUNT, private_key_id: 'other' })) }));
    expect(credentialsFingerprint(a)).to.not.equal(credentialsFingerprint(b));
    expect(credentialsFingerprint(a)).to.not.contain('PRIVATE');
  });
});

describe('GCP client factory', () => {
  const creds = (id: string): GcpCredentials => ({ projectId: 'p', clientEmail: 'e', json: { private_key_id: id } });

  it('sends no credentials to a plain-http endpoint, and the Secret key otherwise', () => {
    expect(authOptions('http://127.0.0.1:1234', creds('a')).authClient).to.be.instanceOf(PassThroughClient);
    expect(authOptions('https://compute.example', creds('a'))).to.deep.equal({ credentials: { private_key_id: 'a' }, projectId: 'p' });
    expect(authOptions(undefined, undefined)).to.deep.equal({});
  });

  it('splits an endpoint URL into the host, port and protocol gax wants', () => {
    expect(gaxEndpointOptions('http://127.0.0.1:8080')).to.deep.equal({ apiEndpoint: '127.0.0.1', port: 8080, protocol: 'http' });
    expect(gaxEndpointOptions('https://compute.example')).to.deep.equal({ apiEndpoint: 'compute.example', port: 443, protocol: 'https' });
    expect(gaxEndpointOptions(undefined)).to.deep.equal({});
  });

  it('builds an exact-name OR filter', () => {
    expect(nameFilter(['a', 'b"x'])).to.equal('(name = "a") OR (name = "bx")');
  });

  it('caches clients per credentials and replaces them when the Secret changes', () => {
    const built: string[] = [];
    const f = new GcpClientFactory({ clock: new FakeClock(), createComputeApi: (c) => (built.push(String(c?.json.private_key_id)), {} as ComputeApi) });
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
});
