import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { Command } from 'commander';
import { parseGoDuration } from '../../../cmd/internal/go-duration.js';
import { parseFeatureGates } from '../../../cmd/internal/feature-gates.js';
import { haTimings, leaseTimings, singleReplicaTimings } from '../../../cmd/internal/leader-election-durations.js';
import { addStandardFlags, readStandardFlags } from '../../../cmd/internal/standard-flags.js';
import { runUntilSignal } from '../../../cmd/internal/run-until-signal.js';
import type { KubeClient } from '../../../lib/client/kube-client.js';
import { Manager } from '../../../lib/runtime/manager.js';
import { nullLogger } from '../../../lib/base/structured-logger.js';

const defaults = {
  leaderElectionId: 'cluster-api-provider-aws-leader',
  metricsBindAddress: ':8081',
  healthAddr: ':9440',
};

function parse(args: string[]) {
  const cmd = addStandardFlags(
    new Command('test').exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined }),
    defaults,
  );
  cmd.parse(args, { from: 'user' });
  return readStandardFlags(cmd);
}

describe('parseGoDuration', () => {
  it('reads Go duration strings into milliseconds', () => {
    expect(parseGoDuration('120s')).to.equal(120_000);
    expect(parseGoDuration('1m30s')).to.equal(90_000);
    expect(parseGoDuration('1.5h')).to.equal(5_400_000);
    expect(parseGoDuration('500ms')).to.equal(500);
    expect(parseGoDuration('0')).to.equal(0);
  });
  it('rejects numbers without a unit and junk, naming the flag', () => {
    expect(() => parseGoDuration('120', '--leader-elect-lease-duration')).to.throw(
      /--leader-elect-lease-duration: "120" is not a duration/,
    );
    expect(() => parseGoDuration('1x')).to.throw(/not a duration/);
    expect(() => parseGoDuration('')).to.throw(/not a duration/);
  });
});

describe('parseFeatureGates', () => {
  it('reads Name=bool pairs and rejects anything else', () => {
    expect(parseFeatureGates('MachineAPIMigration=true, Other=false')).to.deep.equal({
      MachineAPIMigration: true,
      Other: false,
    });
    expect(parseFeatureGates('')).to.deep.equal({});
    expect(() => parseFeatureGates('A=yes')).to.throw(/"A=yes" must be Name=true or Name=false/);
  });
});

describe('leaseTimings', () => {
  it('uses 137/107/26 s on HA clusters and 270/240/60 s on single-replica clusters when no duration is given', () => {
    expect(leaseTimings(0, undefined)).to.deep.equal(haTimings);
    expect(leaseTimings(0, 'HighlyAvailable')).to.deep.equal(haTimings);
    expect(leaseTimings(0, 'SingleReplica')).to.deep.equal(singleReplicaTimings);
  });
  it('keeps renew 107 s / retry 26 s with an explicit lease (120 s as the operator passes) and scales them for short leases', () => {
    expect(leaseTimings(120_000, 'SingleReplica')).to.deep.equal({
      leaseDurationMs: 120_000,
      renewDeadlineMs: 107_000,
      retryPeriodMs: 26_000,
    });
    const short = leaseTimings(15_000, undefined);
    expect(short.leaseDurationMs).to.equal(15_000);
    expect(short.renewDeadlineMs).to.be.lessThan(15_000);
    expect(short.renewDeadlineMs).to.be.greaterThan(short.retryPeriodMs * 1.2);
  });
});

describe('standard flags', () => {
  it('have the Machine API defaults', () => {
    const f = parse([]);
    expect(f).to.deep.include({
      namespace: '',
      leaderElect: false,
      leaderElectLeaseDurationMs: 0,
      leaderElectResourceNamespace: '',
      leaderElectId: 'cluster-api-provider-aws-leader',
      metricsBindAddress: ':8081',
      healthAddr: ':9440',
      maxConcurrentReconciles: 10,
      kubeApiQps: 200,
      kubeApiBurst: 400,
      gracefulShutdownTimeoutMs: 30_000,
      syncPeriodMs: 600_000,
      v: 0,
    });
    expect(f.featureGates).to.deep.equal({});
  });

  it('parse every flag as the operator passes them', () => {
    const f = parse([
      '--leader-elect=true',
      '--leader-elect-lease-duration=120s',
      '--namespace',
      'openshift-machine-api',
      '--v=3',
      '--metrics-bind-address=0',
      '--max-concurrent-reconciles',
      '4',
      '--kube-api-qps',
      '50',
      '--kube-api-burst',
      '80',
      '--feature-gates=MachineAPIMigration=true',
      '--kubeconfig',
      '/tmp/kc',
    ]);
    expect(f).to.deep.include({
      leaderElect: true,
      leaderElectLeaseDurationMs: 120_000,
      namespace: 'openshift-machine-api',
      v: 3,
      metricsBindAddress: '0',
      maxConcurrentReconciles: 4,
      kubeApiQps: 50,
      kubeApiBurst: 80,
      kubeconfig: '/tmp/kc',
    });
    expect(f.featureGates).to.deep.equal({ MachineAPIMigration: true });
    expect(parse(['--leader-elect']).leaderElect).to.equal(true);
    expect(parse(['--leader-elect=false']).leaderElect).to.equal(false);
  });

  it("give the logger klog's text format and -v, or the JSON format, and honour --skip_headers and --add_dir_header", () => {
    expect(parse([]).logging).to.deep.equal({ level: 0, format: 'text', skipHeaders: false, addDirHeader: false });
    expect(parse(['--v=4', '--logging-format=json', '--skip_headers', '--add_dir_header=true']).logging).to.deep.equal({
      level: 4,
      format: 'json',
      skipHeaders: true,
      addDirHeader: true,
    });
    expect(parse(['-v', '2']).logging.level).to.equal(2);
    expect(() => parse(['--logging-format=yaml'])).to.throw(/--logging-format must be one of text, json, got "yaml"/);
    expect(parse(['--vmodule=machine-controller=4']).logging.vmodule).to.equal('machine-controller=4');
    expect(() => parse(['--vmodule=machine-controller'])).to.throw(/--vmodule: syntax error/);
  });

  it('serve profiles only with --enable-pprof, on loopback port 6060 unless --pprof-bind-address says otherwise', () => {
    expect(parse([]).pprofBindAddress).to.equal(undefined);
    expect(parse(['--pprof-bind-address=:7070']).pprofBindAddress).to.equal(undefined);
    expect(parse(['--enable-pprof']).pprofBindAddress).to.equal('127.0.0.1:6060');
    expect(parse(['--enable-pprof=true', '--pprof-bind-address=:7070']).pprofBindAddress).to.equal(':7070');
    expect(() => parse(['--enable-pprof=maybe'])).to.throw(/--enable-pprof/);
  });

  it('reject bad values with a message naming the flag', () => {
    expect(() => parse(['--max-concurrent-reconciles', '0'])).to.throw(
      /--max-concurrent-reconciles must be an integer >= 1/,
    );
    expect(() => parse(['--kube-api-qps', '-1'])).to.throw(/--kube-api-qps must be a number > 0/);
    expect(() => parse(['--leader-elect-lease-duration', '15'])).to.throw(/--leader-elect-lease-duration/);
  });

  it('document every flag in --help', () => {
    const cmd = addStandardFlags(new Command('test'), defaults);
    const help = cmd.helpInformation();
    for (const flag of [
      '--kubeconfig',
      '--namespace',
      '--leader-elect',
      '--leader-elect-lease-duration',
      '--leader-elect-resource-namespace',
      '--metrics-bind-address',
      '--health-addr',
      '--max-concurrent-reconciles',
      '--kube-api-qps',
      '--kube-api-burst',
      '--feature-gates',
      '-v, --v',
      '--logging-format',
      '--enable-pprof',
      '--pprof-bind-address',
      '--version',
    ]) {
      expect(help, flag).to.include(flag);
    }
  });
});

describe('runUntilSignal', () => {
  const noClient = {} as KubeClient;

  it('stops the manager gracefully on SIGTERM and exits 0', async () => {
    const signals = new EventEmitter();
    const mgr = new Manager({ client: noClient, logger: nullLogger() });
    let stopped = false;
    mgr.add({
      needLeaderElection: false,
      start: (s) =>
        new Promise((r) =>
          s.addEventListener('abort', () => {
            stopped = true;
            r();
          }),
        ),
    });
    let exitCode: number | undefined;
    const running = runUntilSignal(mgr, { signals, exit: (c) => (exitCode = c) });
    await new Promise((r) => setImmediate(r));
    signals.emit('SIGTERM');
    expect(await running).to.equal(0);
    expect(exitCode).to.equal(0);
    expect(stopped).to.equal(true);
    expect(signals.listenerCount('SIGTERM')).to.equal(0);
  });

  it('exits 1 when the manager fails', async () => {
    const mgr = new Manager({ client: noClient, logger: nullLogger() });
    mgr.add({
      needLeaderElection: false,
      start: async () => {
        throw new Error('boom');
      },
    });
    let exitCode: number | undefined;
    expect(await runUntilSignal(mgr, { signals: new EventEmitter(), exit: (c) => (exitCode = c) })).to.equal(1);
    expect(exitCode).to.equal(1);
  });
});
