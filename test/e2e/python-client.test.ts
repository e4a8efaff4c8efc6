// The Python Kubernetes client (Debian's python3-kubernetes) against the local control plane: what a
// user's script sees must be what a cluster shows it. `.ci/run` installs the package; elsewhere the
// tests are skipped when it is missing.
import { expect } from 'chai';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startControlPlane, type ControlPlane } from '../../sim/apiserver/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const python = '/usr/bin/python3';

function hasPythonClient(): boolean {
  try {
    execFileSync(python, ['-c', 'import kubernetes'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function https(
  cp: ControlPlane,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${cp.token}`, 'content-type': 'application/json' };
    const req = request(`${cp.httpsUrl}${path}`, { method, ca: cp.caCert, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('the Python client against the local control plane', function () {
  this.timeout(60_000);
  let cp: ControlPlane;
  let dir: string;

  before(async function () {
    if (!hasPythonClient()) {
      if (process.env.CI) throw new Error('python3-kubernetes is not installed; .ci/run installs it');
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), 'python-e2e-'));
    cp = await startControlPlane({ kubeconfigPath: join(dir, 'kubeconfig') });
  });
  after(async () => {
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('watches with watch=True (its spelling) and sees a Namespace created after the list', async () => {
    const child = spawn(python, [join(here, 'python', 'watch_namespaces.py'), cp.kubeconfigPath!, 'py-watch-target'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const listed = new Promise<void>((resolve) =>
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('"listed"')) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await Promise.race([listed, exited]);
    const created = await https(cp, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'py-watch-target' },
    });
    expect(created.status).to.equal(201);
    const code = await exited;
    expect(code, `python output:\n${out}\n${err}`).to.equal(0);
    expect(out).to.include('{"type": "ADDED", "name": "py-watch-target"}');
  });

  it('answers a boolean parameter that is not a Go boolean with 400 naming it, not a silent list', async () => {
    const res = await https(cp, 'GET', '/api/v1/namespaces?watch=yes');
    expect(res.status).to.equal(400);
    expect(res.body).to.include('query parameter \\"watch\\" must be a boolean');
  });
});
