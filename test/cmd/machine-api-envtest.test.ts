import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Agent, request } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { deny, startWebhookServer } from '../sim/apiserver/webhooks/webhook-server.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(repo, 'cmd', 'machine-api-envtest.ts');
const crds = join(repo, 'test', 'sim', 'apiserver', 'fixtures', 'crds');

function start(args: string[]): {
  child: ChildProcessWithoutNullStreams;
  url: Promise<string>;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', bin, ...args], { cwd: repo });
  let out = '';
  let err = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(line);
    });
    child.on('exit', () => reject(new Error(`exited before printing the URL: ${err}`)));
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, url, exit };
}

// API responses in tests are untyped JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Version {
  value: string;
  rv: number;
}

/** What a name should hold: its last acknowledged state (undefined: absent) and the write in flight, if any. */
interface Expected {
  acked: Version | undefined;
  inFlight: { next: Version | undefined } | undefined;
}

/** Raw keep-alive HTTP to the server, so a request cut by the kill fails instead of being retried. */
class RawApi {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 16 });
  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json; text: string }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        new URL(path, this.url),
        {
          method,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.token}`,
            ...(payload ? { 'content-type': 'application/json' } : {}),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => {
            let parsed: Json;
            try {
              parsed = JSON.parse(text.split('\n')[0] ?? '');
            } catch {
              parsed = undefined;
            }
            resolve({ status: res.statusCode ?? 0, body: parsed, text });
          });
          res.on('error', reject);
          res.on('close', () => {
            if (!res.complete) reject(new Error(`${method} ${path}: the connection closed mid-reply`));
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

describe('machine-api-envtest binary', function () {
  this.timeout(30000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'envtest-bin-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the URL when ready, writes a working 0600 kubeconfig, keeps data across restarts and exits 0 on SIGTERM', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    const data = join(dir, 'data');
    const first = start(['--port', '0', '--kubeconfig', kubeconfig, '--data-dir', data, '--crds', crds]);
    const url = await first.url;
    expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(statSync(kubeconfig).mode & 0o777).to.equal(0o600);
    const kc = new k8s.KubeConfig();
    kc.loadFromString(readFileSync(kubeconfig, 'utf8'));
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'from-bin' } } });
    first.child.kill('SIGTERM');
    expect(await first.exit).to.equal(0);

    const second = start(['--kubeconfig', kubeconfig, '--data-dir', data, '--crds', crds]);
    await second.url;
    const kc2 = new k8s.KubeConfig();
    kc2.loadFromString(readFileSync(kubeconfig, 'utf8'));
    expect((await kc2.makeApiClient(k8s.CoreV1Api).readNamespace({ name: 'from-bin' })).metadata?.name).to.equal(
      'from-bin',
    );
    second.child.kill('SIGINT');
    expect(await second.exit).to.equal(0);
  });

  it('never loses an acknowledged write to kill -9, and its resourceVersion never goes backwards', async function () {
    this.timeout(120_000);
    const kubeconfig = join(dir, 'kubeconfig');
    const data = join(dir, 'data');
    const args = ['--kubeconfig', kubeconfig, '--data-dir', data, '--crds', crds, '--token', 'crash-test'];
    const first = start(args);
    const api = new RawApi(await first.url, 'crash-test');
    await api.call('POST', '/api/v1/namespaces', { metadata: { name: 'crash' } });

    // Eight workers, each owning its own names, create, update and delete ConfigMaps as fast as the server
    // acknowledges them; the server is killed with SIGKILL while requests are in flight.
    const models = new Map<string, Expected>();
    let maxAckedRv = 0;
    let stop = false;
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const name = `cm-${w}-${i % 5}`;
        const m = models.get(name) ?? { acked: undefined, inFlight: undefined };
        models.set(name, m);
        const value = `${w}-${i}`;
        let op: { method: string; path: string; body?: unknown; next: Version | undefined };
        if (!m.acked)
          op = {
            method: 'POST',
            path: '/api/v1/namespaces/crash/configmaps',
            body: { metadata: { name }, data: { value } },
            next: { value, rv: 0 },
          };
        else if (i % 7 === 6)
          op = { method: 'DELETE', path: `/api/v1/namespaces/crash/configmaps/${name}`, next: undefined };
        else
          op = {
            method: 'PUT',
            path: `/api/v1/namespaces/crash/configmaps/${name}`,
            body: { metadata: { name, resourceVersion: String(m.acked.rv) }, data: { value } },
            next: { value, rv: 0 },
          };
        m.inFlight = { next: op.next };
        let res: { status: number; body: Json };
        try {
          res = await api.call(op.method, op.path, op.body);
        } catch {
          return; // the server is gone: this write was never acknowledged
        }
        if (res.status >= 300) throw new Error(`${op.method} ${op.path}: ${res.status} ${JSON.stringify(res.body)}`);
        const rv = Number(res.body.metadata?.resourceVersion ?? 0);
        maxAckedRv = Math.max(maxAckedRv, rv);
        m.acked = op.next ? { value, rv } : undefined;
        m.inFlight = undefined;
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    // Let a random few hundred writes be acknowledged first, so the kill lands anywhere in the run.
    const killAfter = 150 + Math.floor(Math.random() * 250);
    while ([...models.values()].length < 8 || maxAckedRv < killAfter) await new Promise((r) => setTimeout(r, 5));
    first.child.kill('SIGKILL');
    stop = true;
    await first.exit;
    await Promise.all(workers);
    api.close();
    const acknowledged = [...models.values()].filter((m) => m.acked).length;
    expect(acknowledged).to.be.greaterThan(0);

    const second = start(args);
    const again = new RawApi(await second.url, 'crash-test');
    try {
      const list = await again.call('GET', '/api/v1/namespaces/crash/configmaps');
      const listRv = Number(list.body.metadata.resourceVersion);
      expect(listRv, 'the resourceVersion after the restart').to.be.at.least(maxAckedRv);
      const found = new Map<string, { value: string; rv: number }>(
        (list.body.items as Json[]).map((o) => [
          o.metadata.name,
          { value: o.data.value, rv: Number(o.metadata.resourceVersion) },
        ]),
      );
      for (const [name, m] of models) {
        const got = found.get(name);
        // The state is the last acknowledged one, or the one the write in flight at the kill would have made.
        const allowed = [m.acked, ...(m.inFlight ? [m.inFlight.next] : [])];
        const matches = allowed.some((v) =>
          v === undefined ? got === undefined : got !== undefined && got.value === v.value && got.rv >= v.rv,
        );
        expect(
          matches,
          `${name}: found ${JSON.stringify(got)}, acknowledged ${JSON.stringify(m.acked)}, in flight ${JSON.stringify(m.inFlight)}`,
        ).to.equal(true);
      }
      const created = await again.call('POST', '/api/v1/namespaces/crash/configmaps', {
        metadata: { name: 'after-restart' },
      });
      expect(Number(created.body.metadata.resourceVersion)).to.be.greaterThan(listRv);

      // A watch resumed at a position from before the kill gets the changes since, or 410 Gone: never a silent gap.
      const watch = await again.call(
        'GET',
        `/api/v1/namespaces/crash/configmaps?watch=true&resourceVersion=${maxAckedRv}&timeoutSeconds=1`,
      );
      if (watch.status === 200) expect(watch.text).to.contain('after-restart');
      else expect(watch.status).to.equal(410);
      const future = await again.call(
        'GET',
        `/api/v1/namespaces/crash/configmaps?watch=true&resourceVersion=${listRv + 1000}&timeoutSeconds=1`,
      );
      expect(future.status, 'a watch from a resourceVersion the server never issued').to.equal(410);
    } finally {
      again.close();
      second.child.kill('SIGTERM');
      expect(await second.exit).to.equal(0);
    }
  });

  it('reaches a webhook Service at the address --webhook-service gives', async () => {
    const hook = await startWebhookServer(['checker.hooks.svc']);
    hook.handle = (request) => deny(request, { code: 403, message: 'no namespaces today' });
    const kubeconfig = join(dir, 'kubeconfig');
    const p = start([
      '--kubeconfig',
      kubeconfig,
      '--crds',
      crds,
      '--webhook-service',
      `hooks/checker=${hook.hostPort}`,
    ]);
    try {
      await p.url;
      const kc = new k8s.KubeConfig();
      kc.loadFromString(readFileSync(kubeconfig, 'utf8'));
      await kc.makeApiClient(k8s.AdmissionregistrationV1Api).createValidatingWebhookConfiguration({
        body: {
          metadata: { name: 'checker' },
          webhooks: [
            {
              name: 'checker.hooks.test.io',
              clientConfig: { service: { namespace: 'hooks', name: 'checker', path: '/v' }, caBundle: hook.caBundle },
              rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'], operations: ['CREATE'] }],
              sideEffects: 'None',
              admissionReviewVersions: ['v1'],
            },
          ],
        },
      });
      const err = await kc
        .makeApiClient(k8s.CoreV1Api)
        .createNamespace({ body: { metadata: { name: 'refused' } } })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).to.be.instanceOf(k8s.ApiException);
      expect((err as k8s.ApiException<string>).code).to.equal(403);
      expect(String((err as k8s.ApiException<string>).body)).to.include(
        'admission webhook \\"checker.hooks.test.io\\" denied the request: no namespaces today',
      );
      expect(hook.reviews.map((r) => r.path)).to.deep.equal(['/v?timeout=10s']);
    } finally {
      p.child.kill('SIGTERM');
      await p.exit;
      await hook.close();
    }
  });

  it('fails with a clear message for a bad --webhook-service', async () => {
    const p = start(['--kubeconfig', join(dir, 'k'), '--webhook-service', 'hooks/checker']);
    let err = '';
    p.child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    expect(await p.exit).to.not.equal(0);
    expect(err).to.contain('--webhook-service must be namespace/name[:port]=host:port, got "hooks/checker"');
    p.url.catch(() => undefined);
  });

  it('fails with a clear message for a bad port', async () => {
    const p = start(['--port', 'x', '--kubeconfig', join(dir, 'k')]);
    let err = '';
    p.child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    expect(await p.exit).to.not.equal(0);
    expect(err).to.contain('--port must be an integer');
    p.url.catch(() => undefined);
  });
});
