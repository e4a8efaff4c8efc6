// Malformed requests to the local control plane and the EC2 emulator: each gets a proper error status (4xx,
// never a 5xx, a hang or a reset connection), the server keeps serving, and nothing is stored.
import { request } from 'node:http';
import { expect } from 'chai';
import fc from 'fast-check';
import { startControlPlane, type ControlPlane } from '../../sim/apiserver/index.js';
import { EMULATOR_ACCESS_KEY, signRequest, startEc2Emulator, type Ec2Emulator } from '../../sim/aws/index.js';
import { anyJson, hostileString } from './arbitraries.js';

const RUNS = Math.max(50, Math.floor(Number(process.env.PROPERTY_RUNS ?? 200) / 2));

interface Reply {
  status: number;
  body: string;
}

function send(
  base: string,
  method: string,
  path: string,
  body: Buffer | string | undefined,
  headers: Record<string, string>,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, base),
      {
        method,
        headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${path}: no answer in 10 s`)));
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Every byte of the UTF-8 form percent-encoded (lone surrogates become U+FFFD, as on the wire). */
const percentEncode = (s: string): string =>
  [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

const garbageBody: fc.Arbitrary<string> = fc.oneof(
  hostileString,
  anyJson.map((v) => JSON.stringify(v) ?? 'undefined'),
  anyJson.map((v) => (JSON.stringify(v) ?? '').slice(0, -1)),
  fc.constantFrom(
    '{',
    '{"metadata":',
    '[]',
    'null',
    '{"apiVersion":"machine.openshift.io/v1beta1","kind":"Machine"}',
    '{"kind":"Machine","metadata":{"name":"UPPER_case!"}}',
    '<xml/>',
  ),
);

describe('property: malformed requests to the local control plane', function () {
  this.timeout(120_000);
  let cp: ControlPlane;
  const machines = '/apis/machine.openshift.io/v1beta1/namespaces/default/machines';
  const auth = () => ({ authorization: `Bearer ${cp.token}` });
  const count = async () =>
    (JSON.parse((await send(cp.url, 'GET', machines, undefined, auth())).body) as { items: unknown[] }).items.length;

  before(async () => {
    cp = await startControlPlane({ maxBodyBytes: 256 * 1024 });
  });
  after(() => cp.stop());

  it('answers bad JSON bodies on create, update and patch with a 4xx Status and stores nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        garbageBody,
        fc.constantFrom(
          ['POST', machines, 'application/json'],
          ['PUT', `${machines}/m1`, 'application/json'],
          ['PATCH', `${machines}/m1`, 'application/merge-patch+json'],
          ['PATCH', `${machines}/m1`, 'application/json-patch+json'],
          ['PATCH', `${machines}/m1`, 'application/strategic-merge-patch+json'],
          ['POST', machines, 'text/plain'],
        ),
        async (body, [method, path, type]) => {
          const r = await send(cp.url, method, path, body, { ...auth(), 'content-type': type });
          if (r.status < 300) {
            // A random body that happens to be a valid Machine is fine; remove it so "nothing stored" holds for the rest.
            const name = (JSON.parse(r.body) as { metadata: { name: string } }).metadata.name;
            await send(cp.url, 'DELETE', `${machines}/${name}`, undefined, auth());
            return;
          }
          expect(r.status, r.body).to.be.within(400, 499);
          expect((JSON.parse(r.body) as { kind: string }).kind).to.equal('Status');
          expect(await count()).to.equal(0);
        },
      ),
      { numRuns: RUNS, seed: 3 },
    );
  });

  it('answers bad label and field selectors with 400 and keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(hostileString, fc.constantFrom('labelSelector', 'fieldSelector'), async (sel, param) => {
        const r = await send(cp.url, 'GET', `${machines}?${param}=${percentEncode(sel)}`, undefined, auth());
        // 400 from the selector parser; 414/431 from the HTTP layer for selectors longer than a URL may be.
        expect(r.status === 200 || (r.status >= 400 && r.status < 500), `${r.status} ${r.body.slice(0, 200)}`).to.equal(
          true,
        );
      }),
      { numRuns: RUNS, seed: 5 },
    );
    expect((await send(cp.url, 'GET', '/api', undefined, auth())).status).to.equal(200);
  });

  it('refuses a body over the size limit with 413 and stores nothing', async () => {
    const huge = JSON.stringify({
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      metadata: { name: 'huge' },
      spec: { x: 'x'.repeat(400 * 1024) },
    });
    const r = await send(cp.url, 'POST', machines, huge, { ...auth(), 'content-type': 'application/json' }).catch(
      (err: Error) => ({ status: -1, body: err.message }),
    );
    // Either the 413 arrives, or the server closed the upload early; both refuse, and it keeps serving.
    expect(r.status === 413 || r.status === -1, `${r.status} ${r.body.slice(0, 200)}`).to.equal(true);
    expect(await count()).to.equal(0);
  });
});

describe('property: malformed requests to the EC2 emulator', function () {
  this.timeout(120_000);
  let emu: Ec2Emulator;
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const live = () => emu.instances().length;
  /** POSTs `body` signed with the emulator's key, so what is tested is the parsing behind the signature check. */
  const post = (body: string, headers: Record<string, string>) => {
    const host = new URL(emu.endpoint).host;
    const signed = signRequest(
      EMULATOR_ACCESS_KEY,
      { region: emu.region, service: 'ec2' },
      { method: 'POST', url: '/', host, contentType: headers['content-type'], body },
    );
    return send(emu.endpoint, 'POST', '/', body, { ...headers, ...signed });
  };

  before(async () => {
    emu = await startEc2Emulator({ maxBodyBytes: 64 * 1024 });
  });
  after(() => emu.stop());

  const queryBody: fc.Arbitrary<string> = fc.oneof(
    hostileString,
    fc
      .dictionary(
        fc.oneof(
          hostileString,
          fc.constantFrom('Action', 'Version', 'MinCount', 'MaxCount', 'ImageId', 'InstanceId.1', 'Filter.1.Name'),
        ),
        hostileString,
        { maxKeys: 6 },
      )
      .map((d) => new URLSearchParams(d).toString()),
    fc
      .tuple(
        fc.constantFrom('RunInstances', 'TerminateInstances', 'DescribeInstances', 'CreateTags', 'Bogus'),
        fc.dictionary(hostileString, hostileString, { maxKeys: 4 }),
      )
      .map(([action, d]) => new URLSearchParams({ Action: action, Version: '2016-11-15', ...d }).toString()),
    fc.constantFrom(
      '%',
      '%zz',
      'Action=RunInstances&Version=2016-11-15&MinCount=abc&MaxCount=-1&ImageId=ami-0a1b2c3d4e5f00001',
      '<?xml version="1.0"?><x/>',
    ),
  );

  it('answers bad form bodies with a 4xx XML error, never launches an instance, and keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(queryBody, fc.constantFrom(form, { 'content-type': 'text/xml' }, {}), async (body, headers) => {
        const before = live();
        const r = await post(body, headers);
        if (r.status === 200) return; // a well-formed read (e.g. DescribeInstances with ignored extras)
        expect(r.status, r.body).to.be.within(400, 499);
        expect(r.body).to.match(/<Code>[A-Za-z.]+<\/Code>/);
        expect(live()).to.equal(before);
      }),
      { numRuns: RUNS, seed: 9 },
    );
    const ok = await post('Action=DescribeRegions&Version=2016-11-15', form);
    expect(ok.status).to.equal(200);
  });

  it('refuses a body over the size limit with 413 and keeps serving', async () => {
    const r = await send(
      emu.endpoint,
      'POST',
      '/',
      `Action=DescribeInstances&Version=2016-11-15&X=${'a'.repeat(100 * 1024)}`,
      form,
    ).catch((err: Error) => ({ status: -1, body: err.message }));
    expect(r.status === 413 || r.status === -1, `${r.status}`).to.equal(true);
    expect((await post('Action=DescribeRegions&Version=2016-11-15', form)).status).to.equal(200);
  });
});
