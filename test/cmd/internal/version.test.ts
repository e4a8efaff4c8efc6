import { expect } from 'chai';
import { Command, CommanderError } from 'commander';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addStandardFlags, buildVersion, versionLine, type BinarySpec } from '../../../cmd/internal/index.js';
import { buildLocalProgram } from '../../../cmd/local/cli-options.js';
import { machineHealthCheckBinary } from '../../../cmd/machine-healthcheck.js';
import { buildProgram as buildAwsProgram } from '../../../cmd/machine-api-provider-aws.js';
import { buildProgram as buildGcpProgram } from '../../../cmd/machine-api-provider-gcp.js';
import { buildProgram as buildIbmProgram } from '../../../cmd/machine-api-provider-ibmcloud.js';
import { machineSetControllerBinary } from '../../../cmd/machineset-controller.js';
import { nodeLinkControllerBinary } from '../../../cmd/nodelink-controller.js';
import { buildProgram as buildTerminationHandlerProgram } from '../../../cmd/termination-handler.js';
import { startBinary } from '../binary-harness.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('--version', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'version-'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'machine-api-ts', version: '1.2.3' }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function gitDir(at: string, head: string): string {
    const git = join(at, '.git');
    mkdirSync(join(git, 'refs', 'heads'), { recursive: true });
    writeFileSync(join(git, 'HEAD'), head);
    return git;
  }

  it('reads the package version and the commit HEAD names through its branch, from a module below the root', () => {
    const git = gitDir(dir, 'ref: refs/heads/main\n');
    writeFileSync(join(git, 'refs', 'heads', 'main'), `${A}\n`);
    const below = join(dir, '.tmp', 'compiled', 'x', 'cmd', 'internal');
    mkdirSync(below, { recursive: true });
    expect(buildVersion(below)).to.deep.equal({ version: '1.2.3', commit: A });
    expect(versionLine('nodelink-controller', buildVersion(below))).to.equal(
      `nodelink-controller v1.2.3 (commit ${A})`,
    );
  });

  it('finds a packed branch, a detached HEAD, and the HEAD of a worktree whose .git is a file', () => {
    const git = gitDir(dir, 'ref: refs/heads/packed\n');
    writeFileSync(join(git, 'packed-refs'), `# pack-refs with: peeled\n${B} refs/heads/packed\n`);
    expect(buildVersion(dir).commit).to.equal(B);
    writeFileSync(join(git, 'HEAD'), `${A}\n`);
    expect(buildVersion(dir).commit).to.equal(A);
    // A worktree: .git names its own folder, whose commondir leads back to the shared refs.
    rmSync(git, { recursive: true });
    const common = join(dir, 'common.git');
    const own = join(common, 'worktrees', 'wt');
    mkdirSync(join(common, 'refs', 'heads'), { recursive: true });
    mkdirSync(own, { recursive: true });
    writeFileSync(join(common, 'refs', 'heads', 'topic'), `${B}\n`);
    writeFileSync(join(own, 'HEAD'), 'ref: refs/heads/topic\n');
    writeFileSync(join(own, 'commondir'), '../..\n');
    writeFileSync(join(dir, '.git'), `gitdir: ${own}\n`);
    expect(buildVersion(dir)).to.deep.equal({ version: '1.2.3', commit: B });
  });

  it('prints the version alone outside a checkout (an image), and "unknown" without the package', () => {
    expect(versionLine('x', buildVersion(dir))).to.equal('x v1.2.3');
    expect(buildVersion(tmpdir()).version).to.equal('unknown');
  });

  it('is a flag of every binary, printing "<binary> v<version>" on stdout and exiting 0', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const fromSpec = (spec: BinarySpec) => () => addStandardFlags(new Command(spec.name), spec.defaults);
    const programs: Array<[string, () => Command]> = [
      ['machine-api-provider-aws', () => buildAwsProgram({})],
      ['machine-api-provider-gcp', () => buildGcpProgram({})],
      ['machine-api-provider-ibmcloud', () => buildIbmProgram({})],
      ['machineset-controller', fromSpec(machineSetControllerBinary)],
      ['machine-healthcheck', fromSpec(machineHealthCheckBinary)],
      ['nodelink-controller', fromSpec(nodeLinkControllerBinary)],
      ['termination-handler', () => buildTerminationHandlerProgram({})],
      ['machine-api-local', () => buildLocalProgram()],
    ];
    for (const [name, build] of programs) {
      let out = '';
      const cmd = build()
        .exitOverride()
        .configureOutput({ writeOut: (t) => (out += t), writeErr: () => undefined });
      let exit: CommanderError | undefined;
      try {
        cmd.parse(['--version'], { from: 'user' });
      } catch (err) {
        exit = err as CommanderError;
      }
      expect(exit?.code, name).to.equal('commander.version');
      const [line, commit] = out.split(' (commit ');
      expect(line?.replace('\n', ''), name).to.equal(`${name} v${pkg.version}`);
      if (commit !== undefined) expect(commit, name).to.match(/^[0-9a-f]{40}\)\n$/);
    }
    // And as a process: machine-api-envtest builds its program inside main().
    const envtest = startBinary('machine-api-envtest', ['--version']);
    expect(await envtest.exited).to.equal(0);
    expect(envtest.output()).to.match(/^machine-api-envtest v\d+\.\d+\.\d+/);
  });
});
