import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { runBinary } from '../../../cmd/internal/run-binary.js';
import { ConfigMaps, Leases, Namespaces } from '../../../lib/client/resources.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';
import { waitFor } from '../../lib/runtime/support/wait.js';

describe('runBinary against the local control plane', function () {
  this.timeout(20_000);
  let env: TestEnv;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'run-binary-'));
    env = await startTestEnv({ controlPlane: { kubeconfigPath: join(dir, 'kubeconfig') } });
    await env.client.create(Namespaces, { metadata: { name: 'bin' } });
    await env.client.create(ConfigMaps, { metadata: { name: 'seen', namespace: 'bin' } });
  });
  after(async () => {
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('wires flags into a manager, leads, reconciles, and on SIGTERM releases the lease and exits 0', async () => {
    const signals = new EventEmitter();
    const logs: string[] = [];
    const logStream = new Writable({
      write(c: Buffer, _e, cb) {
        logs.push(c.toString());
        cb();
      },
    });
    const reconciled: string[] = [];
    let exitCode: number | undefined;
    let extra: unknown;
    const running = runBinary(
      {
        name: 'test-controller',
        description: 'test',
        defaults: { leaderElectionId: 'test-controller-leader', metricsBindAddress: '0', healthAddr: '' },
        flags: (cmd) => cmd.option('--extra <v>', 'a binary-specific flag', 'd'),
        register: (mgr, flags, opts) => {
          extra = opts.extra;
          expect(flags.namespace).to.equal('bin');
          mgr.addController({
            name: 'cm',
            watches: [{ informer: mgr.informer(ConfigMaps), enqueue: 'self' }],
            reconciler: { reconcile: async (r) => void reconciled.push(r.name) },
          });
        },
      },
      {
        args: [
          '--kubeconfig',
          join(dir, 'kubeconfig'),
          '--namespace',
          'bin',
          '--leader-elect',
          '--leader-elect-lease-duration=3s',
          '--leader-elect-resource-namespace=bin',
          '--extra',
          'x',
          '-v',
          '2',
        ],
        signals,
        exit: (c) => (exitCode = c),
        logStream,
      },
    );
    await waitFor(() => reconciled.includes('seen'), 'a reconcile');
    expect(extra).to.equal('x');
    const lease = await env.client.get(Leases, { namespace: 'bin', name: 'test-controller-leader' });
    expect(lease.spec?.holderIdentity).to.be.a('string').and.not.equal('');
    expect(lease.spec?.leaseDurationSeconds).to.equal(3);
    signals.emit('SIGTERM');
    expect(await running).to.equal(0);
    expect(exitCode).to.equal(0);
    expect(
      (await env.client.get(Leases, { namespace: 'bin', name: 'test-controller-leader' })).spec?.holderIdentity,
    ).to.equal('');
    expect(logs.some((l) => l.includes('"msg":"successfully acquired lease"'))).to.equal(true);
  });

  it('exits 2 on a bad flag, printing what is wrong with it', async () => {
    let exitCode: number | undefined;
    let printed = '';
    const errorStream = new Writable({
      write(chunk: Buffer, _enc, done) {
        printed += chunk.toString();
        done();
      },
    });
    const code = await runBinary(
      {
        name: 'x',
        description: 'x',
        defaults: { leaderElectionId: 'x', metricsBindAddress: '0', healthAddr: '' },
        register: () => undefined,
      },
      { args: ['--max-concurrent-reconciles', 'many'], exit: (c) => (exitCode = c), errorStream },
    );
    expect(code).to.equal(2);
    expect(exitCode).to.equal(2);
    expect(printed).to.include("option '--max-concurrent-reconciles <n>' argument 'many' is invalid");
  });
});
