import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PARENT_PID_ENV } from '../../../cmd/local/binary-processes.js';
import { processRunning as running } from '../../e2e/support/local-process.js';

const repo = join(import.meta.dirname, '..', '..', '..');
const preload = pathToFileURL(join(repo, 'cmd', 'local', 'exit-with-parent.ts')).href;

async function until(what: string, ok: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts a parent that starts a binary-like child with the preload (as BinaryProcesses does, its pid in the
 * environment) and prints the child's pid. The child notes in `marker` when it is ready and when SIGTERM came.
 */
function startParent(
  marker: string,
  parentThen: string,
): { parent: ReturnType<typeof spawn>; childPid: Promise<number> } {
  const child = `const fs = require('node:fs'); process.on('SIGTERM', () => { fs.writeFileSync(${JSON.stringify(marker)}, 'term'); process.exit(0); }); fs.writeFileSync(${JSON.stringify(marker)}, 'ready'); setInterval(() => {}, 1000);`;
  const parentScript = `const c = require('node:child_process').spawn(process.execPath, ['--import', 'tsx', '--import', ${JSON.stringify(preload)}, '-e', ${JSON.stringify(child)}], { stdio: 'ignore', env: { ...process.env, ${PARENT_PID_ENV}: String(process.pid) } }); console.log(c.pid); ${parentThen}`;
  const parent = spawn(process.execPath, ['-e', parentScript], { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] });
  const childPid = new Promise<number>((resolve) =>
    parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
  );
  return { parent, childPid };
}

describe('controller binaries started by npm start exit with it', function () {
  this.timeout(40_000);
  let dir: string;
  let marker: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'exit-with-parent-'));
    marker = join(dir, 'marker');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gets SIGTERM, and so shuts down gracefully, once the process that started it was killed outright', async () => {
    const { parent, childPid } = startParent(marker, 'setInterval(() => {}, 1000);');
    const pid = await childPid;
    await until('the child to start', () => existsSync(marker) && readFileSync(marker, 'utf8') === 'ready');
    parent.kill('SIGKILL');
    await until('the orphan to stop', () => !running(pid));
    expect(readFileSync(marker, 'utf8')).to.equal('term');
  });

  it('stops even when its parent was gone before the preload ran', async () => {
    const { childPid } = startParent(marker, 'process.exit(0);');
    const pid = await childPid;
    await until('the orphan to stop', () => !running(pid));
  });
});
