// machineset-controller's start-up checks for its webhooks: what it cannot serve without is a clear start-up
// error naming the flag or the object, never a server that silently is not there.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { machineSetControllerBinary } from '../../cmd/machineset-controller.js';
import { runBinary } from '../../cmd/internal/index.js';
import { generateServingCert } from '../../sim/apiserver/tls-cert.js';
import { startTestEnv, type TestEnv } from '../../sim/kit/test-env.js';

describe('machineset-controller webhook start-up', function () {
  this.timeout(30_000);
  let env: TestEnv;
  let dir: string;
  let kubeconfig: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'machineset-controller-'));
    kubeconfig = join(dir, 'kubeconfig');
    env = await startTestEnv({ controlPlane: { kubeconfigPath: kubeconfig } });
  });
  after(async () => {
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the binary in-process until it exits; resolves with its exit code and what it printed as the reason. */
  async function start(args: string[]): Promise<{ code: number; error: string }> {
    let error = '';
    const errorStream = new PassThrough();
    errorStream.on('data', (c: Buffer) => (error += c.toString()));
    const code = await runBinary(machineSetControllerBinary, {
      args: ['--kubeconfig', kubeconfig, '--metrics-bind-address=0', '--health-addr=', ...args],
      exit: () => {},
      errorStream,
      logStream: new PassThrough(),
    });
    return { code, error };
  }

  it('refuses to start when the certificate directory holds no certificate, naming --webhook-cert-dir', async () => {
    const missing = join(dir, 'no-such-dir');
    const { code, error } = await start(['--webhook-cert-dir', missing]);
    expect(code).to.equal(1);
    expect(error).to.equal(
      `machineset-controller: --webhook-cert-dir: cannot read ${join(missing, 'tls.crt')}: ENOENT (webhooks are enabled; mount the serving certificate there or pass --webhook-enabled=false)\n`,
    );
  });

  it('refuses to start without the Infrastructure "cluster", which gives the platform and the cluster label', async () => {
    const certDir = join(dir, 'tls');
    mkdirSync(certDir, { recursive: true });
    const cert = generateServingCert();
    writeFileSync(join(certDir, 'tls.crt'), cert.certPem);
    writeFileSync(join(certDir, 'tls.key'), cert.keyPem);
    const { code, error } = await start(['--webhook-cert-dir', certDir]);
    expect(code).to.equal(1);
    expect(error).to.match(
      /^machineset-controller: admission webhooks need the Infrastructure "cluster" \(config\.openshift\.io\/v1\) for the platform and the cluster name: /,
    );
  });

  it('refuses a --webhook-port that is not a port, and a --webhook-enabled that is not a Go bool', async () => {
    const port = await start(['--webhook-port=70000']);
    expect(port.code).to.equal(2);
    expect(port.error).to.include('--webhook-port must be a port number (1 to 65535), got "70000"');
    const enabled = await start(['--webhook-enabled=yes']);
    expect(enabled.code).to.equal(2);
    expect(enabled.error).to.include('--webhook-enabled');
  });
});
