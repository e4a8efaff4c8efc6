// The webhook HTTPS server end to end with a real TLS client: the four paths, errors as AdmissionReview
// answers, the serving certificate reloaded when kubelet swaps the mounted Secret's files, the TLS profile
// applied, and the admission metrics.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { Registry } from 'prom-client';
import { createAdmissionRequestHandler } from '../../../lib/admission/admission-handler.js';
import type { AdmissionReview } from '../../../lib/admission/admission-review.js';
import type { MachineAdmission } from '../../../lib/admission/machine-admission.js';
import { startAdmissionServer, type RunningAdmissionServer } from '../../../lib/admission/admission-server.js';
import { ServingCertificateError } from '../../../lib/admission/serving-cert-watcher.js';
import type { TlsServerSettings } from '../../../lib/admission/tls-server-settings.js';
import { generateServingCert, type ServingCert } from '../../../sim/apiserver/tls-cert.js';
import { eventually } from '../machineset/env-helpers.js';

/** Lays the files out as kubelet mounts a Secret: tls.crt -> ..data/tls.crt, ..data -> a timestamped directory swapped atomically. */
function mountSecret(dir: string, cert: ServingCert, generation: number): void {
  const versioned = `..gen_${generation}`;
  mkdirSync(join(dir, versioned));
  writeFileSync(join(dir, versioned, 'tls.crt'), cert.certPem);
  writeFileSync(join(dir, versioned, 'tls.key'), cert.keyPem);
  symlinkSync(versioned, join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
  if (generation === 1) {
    symlinkSync(join('..data', 'tls.crt'), join(dir, 'tls.crt'));
    symlinkSync(join('..data', 'tls.key'), join(dir, 'tls.key'));
  }
}

interface Reply {
  status: number;
  body: string;
  cipher?: string;
  protocol?: string | null;
  /** The Keep-Alive header: how long the server says it keeps the connection idle. */
  keepAlive?: string;
}

function post(
  port: number,
  ca: string,
  path: string,
  body: string,
  opts: { method?: string; contentType?: string; maxVersion?: 'TLSv1.2' | 'TLSv1.3'; agent?: Agent } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: opts.method ?? 'POST',
        ca,
        maxVersion: opts.maxVersion,
        agent: opts.agent ?? false,
        headers: { 'content-type': opts.contentType ?? 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        const socket = res.socket as TLSSocket;
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            cipher: socket.getCipher?.()?.standardName,
            protocol: socket.getProtocol?.(),
            keepAlive: String(res.headers['keep-alive'] ?? ''),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(opts.method === 'GET' ? undefined : body);
  });
}

const machineReview = (labels: Record<string, string> = {}) =>
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'a1b2',
      kind: { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' },
      operation: 'CREATE',
      namespace: 'openshift-machine-api',
      object: {
        apiVersion: 'machine.openshift.io/v1beta1',
        kind: 'Machine',
        metadata: { name: 'm', labels },
        spec: { providerSpec: { value: {} } },
      },
    },
  });

describe('admission webhook server', function () {
  this.timeout(30_000);
  let dir: string;
  let certA: ServingCert;
  let registry: Registry;
  let server: RunningAdmissionServer | undefined;
  const infrastructure = {
    clusterId: 'demo-x7k2p',
    platformType: 'None',
    platformStatus: {},
    architecture: 'amd64' as const,
  };

  async function start(
    tls: TlsServerSettings = { minVersion: 'TLSv1.2' },
    plugins: MachineAdmission[] = [],
  ): Promise<RunningAdmissionServer> {
    registry = new Registry();
    server = await startAdmissionServer({
      host: '127.0.0.1',
      port: 0,
      certDir: dir,
      tls,
      certPollIntervalMs: 200,
      handler: createAdmissionRequestHandler({ infrastructure, plugins, metrics: registry }),
    });
    return server;
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'webhook-certs-'));
    certA = generateServingCert('machine-api-operator-webhook');
    mountSecret(dir, certA, 1);
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers an AdmissionReview on the Machine mutating path over TLS with the cluster label patch', async () => {
    const { port } = await start();
    const reply = await post(port, certA.certPem, '/mutate-machine-openshift-io-v1beta1-machine', machineReview());
    expect(reply.status).to.equal(200);
    const review = JSON.parse(reply.body) as AdmissionReview;
    expect(review).to.deep.include({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' });
    expect(review.response).to.deep.include({ uid: 'a1b2', allowed: true, patchType: 'JSONPatch' });
    expect(JSON.parse(Buffer.from(review.response!.patch!, 'base64').toString())).to.deep.equal([
      { op: 'add', path: '/metadata/labels/machine.openshift.io~1cluster-api-cluster', value: 'demo-x7k2p' },
    ]);
  });

  it("given every plug-in, uses the one for the Infrastructure's platform", async () => {
    const defaulting = (platform: string, zone: string): MachineAdmission => ({
      platform,
      default: (value) => ({ value: { ...(value as object), zone }, warnings: [] }),
      validate: () => ({ errors: [], warnings: [] }),
    });
    const { port } = await start(undefined, [defaulting('AWS', 'aws-zone'), defaulting('None', 'none-zone')]);
    const review = JSON.parse(
      (await post(port, certA.certPem, '/mutate-machine-openshift-io-v1beta1-machine', machineReview())).body,
    ) as AdmissionReview;
    expect(JSON.parse(Buffer.from(review.response!.patch!, 'base64').toString())).to.deep.include({
      op: 'add',
      path: '/spec/providerSpec/value/zone',
      value: 'none-zone',
    });
  });

  it('answers what it cannot decode with allowed=false and the reason, on HTTP 200 so the API server denies rather than ignores', async () => {
    const { port } = await start();
    const garbage = JSON.parse(
      (await post(port, certA.certPem, '/validate-machine-openshift-io-v1beta1-machine', '{{{{')).body,
    ) as AdmissionReview;
    expect(garbage.response).to.deep.include({ allowed: false });
    expect(garbage.response!.status!.code).to.equal(400);
    const wrongType = await post(
      port,
      certA.certPem,
      '/validate-machine-openshift-io-v1beta1-machine',
      machineReview(),
      { contentType: 'text/plain' },
    );
    expect(wrongType.status).to.equal(200);
    expect((JSON.parse(wrongType.body) as AdmissionReview).response!.status).to.deep.equal({
      code: 400,
      message: 'contentType=text/plain, expected application/json',
    });
    const deep = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","x":${'['.repeat(50_000)}${']'.repeat(50_000)}}}`;
    expect(
      (
        JSON.parse(
          (await post(port, certA.certPem, '/validate-machine-openshift-io-v1beta1-machine', deep)).body,
        ) as AdmissionReview
      ).response!.status!.code,
    ).to.equal(400);
  });

  it("keeps an idle connection longer than kube-apiserver's 90 s reuse, so the API server never sends a review on a closing one", async () => {
    const { port } = await start();
    const agent = new Agent({ keepAlive: true });
    try {
      const reply = await post(port, certA.certPem, '/mutate-machine-openshift-io-v1beta1-machine', machineReview(), {
        agent,
      });
      expect(reply.status).to.equal(200);
      const timeout = Number(/timeout=(\d+)/.exec(reply.keepAlive ?? '')?.[1]);
      expect(timeout).to.be.greaterThan(90);
    } finally {
      agent.destroy();
    }
  });

  it('refuses a body over the limit with 413 without buffering it, and keeps serving', async () => {
    const { port } = await start();
    const huge = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { uid: 'u', pad: 'x'.repeat(8 * 1024 * 1024) },
    });
    const reply = await post(port, certA.certPem, '/validate-machine-openshift-io-v1beta1-machineset', huge);
    expect((JSON.parse(reply.body) as AdmissionReview).response!.status!.code).to.equal(413);
    expect(
      (await post(port, certA.certPem, '/mutate-machine-openshift-io-v1beta1-machine', machineReview())).status,
    ).to.equal(200);
  });

  it('answers 404 on other paths and 405 to anything but POST', async () => {
    const { port } = await start();
    expect((await post(port, certA.certPem, '/mutate-v1-pod', machineReview())).status).to.equal(404);
    expect(
      (await post(port, certA.certPem, '/mutate-machine-openshift-io-v1beta1-machine', '', { method: 'GET' })).status,
    ).to.equal(405);
  });

  it('serves the rotated certificate once kubelet swaps the mounted files, without a restart', async () => {
    const { port } = await start();
    const certB = generateServingCert('machine-api-operator-webhook');
    await post(port, certA.certPem, '/mutate-machine-openshift-io-v1beta1-machine', machineReview());
    mountSecret(dir, certB, 2);
    await eventually(
      async () =>
        (
          await post(port, certB.certPem, '/mutate-machine-openshift-io-v1beta1-machine', machineReview()).catch(
            () => undefined,
          )
        )?.status === 200,
      { timeoutMs: 10_000, what: 'the rotated certificate served' },
    );
    let oldTrusted = true;
    await post(port, certA.certPem, '/mutate-machine-openshift-io-v1beta1-machine', machineReview()).catch(
      () => (oldTrusted = false),
    );
    expect(oldTrusted, 'a client trusting only the old certificate no longer connects').to.equal(false);
  });

  it('keeps the last good certificate while the files do not form a pair', async () => {
    const { port } = await start();
    writeFileSync(join(dir, '..gen_1', 'tls.key'), generateServingCert().keyPem);
    await new Promise((r) => setTimeout(r, 600));
    expect(
      (await post(port, certA.certPem, '/mutate-machine-openshift-io-v1beta1-machine', machineReview())).status,
    ).to.equal(200);
  });

  it('refuses to start without a readable certificate, naming the file', async () => {
    rmSync(join(dir, 'tls.key'));
    let error: unknown;
    await start().catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(ServingCertificateError);
    expect((error as Error).message).to.equal(`cannot read ${join(dir, 'tls.key')}: ENOENT`);
  });

  it('applies the TLS profile: minimum version and TLS 1.3 suites', async () => {
    const { port } = await start({ minVersion: 'TLSv1.3', tls13Suites: 'TLS_AES_256_GCM_SHA384' });
    const reply = await post(port, certA.certPem, '/mutate-machine-openshift-io-v1beta1-machine', machineReview());
    expect(reply.protocol).to.equal('TLSv1.3');
    expect(reply.cipher).to.equal('TLS_AES_256_GCM_SHA384');
    let refused = false;
    await post(port, certA.certPem, '/mutate-machine-openshift-io-v1beta1-machine', machineReview(), {
      maxVersion: 'TLSv1.2',
    }).catch(() => (refused = true));
    expect(refused, 'a TLS 1.2 client is refused by a VersionTLS13 profile').to.equal(true);
  });

  it('refuses to start with a cipher list OpenSSL does not know, instead of serving with other ciphers', async () => {
    let error: unknown;
    await start({ minVersion: 'TLSv1.2', ciphers: 'NOT-A-CIPHER' }).catch((err: unknown) => (error = err));
    expect((error as Error | undefined)?.message).to.match(/no cipher match/);
  });

  it('counts requests, latency and denials per webhook path on the registry', async () => {
    const { port } = await start();
    await post(port, certA.certPem, '/mutate-machine-openshift-io-v1beta1-machine', machineReview());
    await post(port, certA.certPem, '/validate-machine-openshift-io-v1beta1-machine', 'garbage');
    const text = await registry.metrics();
    expect(text).to.include(
      'controller_runtime_webhook_requests_total{webhook="/mutate-machine-openshift-io-v1beta1-machine",code="200"} 1',
    );
    expect(text).to.include(
      'controller_runtime_webhook_latency_seconds_count{webhook="/validate-machine-openshift-io-v1beta1-machine"} 1',
    );
    expect(text).to.include('mapi_admission_denials_total{webhook="/validate-machine-openshift-io-v1beta1-machine"} 1');
    expect(text).to.not.include('mapi_admission_denials_total{webhook="/mutate-machine-openshift-io-v1beta1-machine"}');
    expect(text).to.include(
      'controller_runtime_webhook_requests_in_flight{webhook="/mutate-machine-openshift-io-v1beta1-machine"} 0',
    );
  });
});
