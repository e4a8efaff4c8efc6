import { expect } from 'chai';
import { Command } from 'commander';
import {
  addStandardFlags,
  readStandardFlags,
  readTlsFlags,
  unknownFeatureGates,
  type BinarySpec,
} from '../../../cmd/internal/index.js';
import { buildProgram as buildAwsProgram } from '../../../cmd/machine-api-provider-aws.js';
import { buildProgram as buildGcpProgram } from '../../../cmd/machine-api-provider-gcp.js';
import { buildProgram as buildIbmProgram } from '../../../cmd/machine-api-provider-ibmcloud.js';
import { machineHealthCheckBinary } from '../../../cmd/machine-healthcheck.js';
import { machineSetControllerBinary } from '../../../cmd/machineset-controller.js';
import { nodeLinkControllerBinary } from '../../../cmd/nodelink-controller.js';
import { maoArgs, MAO_NAMESPACE } from '../mao-args.js';

function quiet(cmd: Command): Command {
  return cmd.exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
}

function binaryProgram(spec: BinarySpec): Command {
  const cmd = quiet(addStandardFlags(new Command(spec.name), spec.defaults));
  spec.flags?.(cmd);
  return cmd;
}

describe('the argument lists the machine-api-operator passes', () => {
  const cases: Array<[string, () => Command, string[]]> = [
    ['machine-controller (AWS)', () => quiet(buildAwsProgram({})), maoArgs.machineController('aws')],
    ['machine-controller (GCP)', () => quiet(buildGcpProgram({})), maoArgs.machineController('gcp')],
    ['machine-controller (IBM Cloud)', () => quiet(buildIbmProgram({})), maoArgs.machineController('ibmcloud')],
    ['machineset-controller', () => binaryProgram(machineSetControllerBinary), maoArgs.machineSetController],
    ['nodelink-controller', () => binaryProgram(nodeLinkControllerBinary), maoArgs.nodeLinkController],
    ['machine-healthcheck-controller', () => binaryProgram(machineHealthCheckBinary), maoArgs.machineHealthCheck],
  ];
  for (const [name, program, args] of cases) {
    it(`${name}: parses them and honours what they set`, () => {
      const cmd = program();
      cmd.parse(args, { from: 'user' });
      const flags = readStandardFlags(cmd);
      expect(flags).to.deep.include({
        v: 3,
        leaderElect: true,
        leaderElectLeaseDurationMs: 120_000,
        namespace: MAO_NAMESPACE,
      });
      if (args.some((a) => a.startsWith('--feature-gates=')))
        expect(flags.featureGates).to.include({ MachineAPIMigration: false, GCPLabelsTags: true });
      if (name.includes('GCP')) expect(flags.maxConcurrentReconciles).to.equal(10);
    });
  }

  it('machineset-controller: turns the TLS profile into node:tls settings', () => {
    const cmd = binaryProgram(machineSetControllerBinary);
    cmd.parse(maoArgs.machineSetController, { from: 'user' });
    const tls = readTlsFlags(cmd.opts());
    expect(tls.minVersion).to.equal('TLSv1.2');
    expect(tls.tls13Suites).to.equal('TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256');
    expect(tls.ciphers?.split(':')).to.include.members([
      'ECDHE-ECDSA-AES128-GCM-SHA256',
      'ECDHE-RSA-CHACHA20-POLY1305',
    ]);
  });

  it('machineset-controller: an unknown cipher name or TLS version is a start-up error naming it', () => {
    expect(() =>
      binaryProgram(machineSetControllerBinary).parse(['--tls-cipher-suites=TLS_AES_128_GCM_SHA256,TLS_MADE_UP'], {
        from: 'user',
      }),
    ).to.throw(/unknown IANA cipher suite name\(s\) "TLS_MADE_UP"/);
    expect(() =>
      binaryProgram(machineSetControllerBinary).parse(['--tls-min-version=TLSv1.2'], { from: 'user' }),
    ).to.throw(/--tls-min-version must be one of VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13/);
  });

  it("klog's other flags are accepted with Go's forms; a flag that is not klog's is still an error", () => {
    const cmd = binaryProgram(nodeLinkControllerBinary);
    cmd.parse(
      [
        '--alsologtostderr',
        '--stderrthreshold=WARNING',
        '--log_dir=/tmp',
        '--add_dir_header=false',
        '--vmodule=foo=4',
        '--skip_headers=1',
      ],
      { from: 'user' },
    );
    expect(() => binaryProgram(nodeLinkControllerBinary).parse(['--logtostderr=maybe'], { from: 'user' })).to.throw(
      /--logtostderr must be a boolean/,
    );
    expect(() => binaryProgram(nodeLinkControllerBinary).parse(['--stderrthreshold=LOUD'], { from: 'user' })).to.throw(
      /--stderrthreshold must be one of/,
    );
    expect(() => binaryProgram(nodeLinkControllerBinary).parse(['--logtostder=true'], { from: 'user' })).to.throw(
      /unknown option '--logtostder=true'/,
    );
  });

  it("--leader-elect takes Go's bool spellings (0 is false, not true)", () => {
    const parse = (args: string[]) => {
      const c = binaryProgram(nodeLinkControllerBinary);
      c.parse(args, { from: 'user' });
      return readStandardFlags(c).leaderElect;
    };
    expect(parse(['--leader-elect=0'])).to.equal(false);
    expect(parse(['--leader-elect=True'])).to.equal(true);
    expect(parse(['--leader-elect'])).to.equal(true);
  });

  it('names the feature gates no binary here acts on, so they are reported once and not mistaken for typos of known ones', () => {
    expect(
      unknownFeatureGates({ MachineAPIMigration: true, GCPLabelsTags: true, AdminNetworkPolicy: false }),
    ).to.deep.equal(['AdminNetworkPolicy', 'GCPLabelsTags']);
  });
});
