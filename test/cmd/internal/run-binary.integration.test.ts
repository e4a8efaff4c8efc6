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
import type { Manager } from '../../../lib/runtime/manager.js';
import { parseKlogLines } from '../../lib/base/support/klog-lines.js';

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
    expect(parseKlogLines(logs.join('')).map((l) => l.msg)).to.include('successfully acquired lease');
  });

  it('writes Kubernetes JSON lines with --logging-format=json and serves profiles on loopback with --enable-pprof', async () => {
    const signals = new EventEmitter();
    let logs = '';
    const logStream = new Writable({
      write(c: Buffer, _e, cb) {
        logs += c.toString();
        cb();
      },
    });
    let manager: Manager | undefined;
    const running = runBinary(
      {
        name: 'json-controller',
        description: 'test',
        defaults: { leaderElectionId: 'json-controller-leader', metricsBindAddress: '0', healthAddr: '' },
        register: (mgr) => void (manager = mgr),
      },
      {
        args: [
          '--kubeconfig',
          join(dir, 'kubeconfig'),
          '--namespace',
          'bin',
          '--logging-format=json',
          '--enable-pprof',
          '--pprof-bind-address=127.0.0.1:0',
          '--feature-gates=SomeGate=true',
        ],
        signals,
        exit: () => undefined,
        logStream,
      },
    );
    await waitFor(() => manager?.pprofAddress() !== undefined, 'the pprof server');
    expect(manager?.pprofAddress()).to.match(/^127\.0\.0\.1:\d+$/);
    const index = await fetch(`http://${manager?.pprofAddress()}/debug/pprof/`);
    expect(await index.text()).to.contain('profile: CPU profile');
    signals.emit('SIGTERM');
    expect(await running).to.equal(0);
    const lines = logs
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const gates = lines.find((l) => l.msg === 'feature gates this binary does not act on');
    expect(Object.keys(gates ?? {})).to.deep.equal(['ts', 'caller', 'msg', 'v', 'component', 'gates']);
    expect(gates).to.deep.include({ v: 0, component: 'json-controller', gates: ['SomeGate'] });
    expect(gates?.caller).to.match(/^internal\/manager-from-flags\.ts:\d+$/);
    expect(gates?.ts)
      .to.be.a('number')
      .within(Date.now() - 60_000, Date.now());
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
