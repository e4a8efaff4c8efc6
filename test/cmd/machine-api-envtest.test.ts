import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(repo, 'cmd', 'machine-api-envtest.ts');
const crds = join(repo, 'test', 'lib', 'envtest', 'fixtures', 'crds');

function start(args: string[]): { child: ChildProcessWithoutNullStreams; url: Promise<string>; exit: Promise<number | null> } {
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
    expect((await kc2.makeApiClient(k8s.CoreV1Api).readNamespace({ name: 'from-bin' })).metadata?.name).to.equal('from-bin');
    second.child.kill('SIGINT');
    expect(await second.exit).to.equal(0);
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
