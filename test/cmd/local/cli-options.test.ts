import { expect } from 'chai';
import { buildLocalProgram, readLocalOptions } from '../../../cmd/local/cli-options.js';
import { BinaryArgsError, parseArgs } from '../../../cmd/local/local-binary.js';

const parse = (args: string[]) => readLocalOptions(parseArgs(buildLocalProgram(), args));

describe('machine-api-local flags', () => {
  it("defaults to AWS, the previous run's port (none given), .local/, a 3 s boot, no latency, samples, a TTY view, one process per controller, no RBAC and no profiling endpoints", () => {
    expect(parse([])).to.deep.equal({
      provider: 'aws',
      port: undefined,
      stateDir: '.local',
      bootDelayMs: 3000,
      terminateDelayMs: 1000,
      latencyMs: 0,
      samples: true,
      tty: true,
      controllers: 'processes',
      rbac: false,
      v: 0,
      pprof: false,
    });
  });

  it('reads every flag, with Go durations', () => {
    expect(
      parse([
        '--provider',
        'aws',
        '--port',
        '6443',
        '--state-dir',
        '/tmp/x',
        '--boot-delay',
        '1m30s',
        '--terminate-delay',
        '0s',
        '--latency',
        '250ms',
        '--no-samples',
        '--no-tty',
        '--controllers',
        'none',
        '--rbac',
        '-v',
        '4',
        '--pprof',
      ]),
    ).to.deep.equal({
      provider: 'aws',
      port: 6443,
      stateDir: '/tmp/x',
      bootDelayMs: 90_000,
      terminateDelayMs: 0,
      latencyMs: 250,
      samples: false,
      tty: false,
      controllers: 'none',
      rbac: true,
      v: 4,
      pprof: true,
    });
  });

  it('rejects bad values naming the flag and the rule', () => {
    expect(() => parse(['--port', '70000'])).to.throw(BinaryArgsError, /--port must be an integer from 0 to 65535/);
    expect(() => parse(['--boot-delay', '3 seconds'])).to.throw(BinaryArgsError, /--boot-delay.*not a duration/);
    expect(() => parse(['--latency', '-1s'])).to.throw(BinaryArgsError, /--latency must not be negative/);
    expect(() => parse(['--provider', 'azure'])).to.throw(BinaryArgsError, /--provider.*azure.*aws/);
    expect(() => parse(['--controllers', 'some'])).to.throw(BinaryArgsError, /--controllers/);
  });
});
