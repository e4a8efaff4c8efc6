// The supervisor of controller binaries run as their own processes: output appended to <name>.log, a binary
// that exits is started again (after beforeStart, which refreshes its credentials), and stop ends them all.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createLogger } from '../../../lib/index.js';
import { eventually } from '../../../sim/kit/index.js';
import { BinaryProcesses } from '../../../cmd/local/binary-processes.js';

describe('controller binaries as supervised processes', function () {
  this.timeout(30_000);
  let dir: string;
  let processes: BinaryProcesses | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'binary-processes-'));
  });
  afterEach(async () => {
    await processes?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts an exited binary again, running beforeStart first each time, with its output appended to its log', async () => {
    const secret = join(dir, 'secret');
    let minted = 0;
    // The "binary" prints the credentials it was started with, then exits: a crash, as far as the supervisor knows.
    const script = `process.stdout.write('token=' + require('fs').readFileSync(${JSON.stringify(secret)}, 'utf8') + '\\n'); process.exit(3);`;
    processes = new BinaryProcesses({
      commands: [{ name: 'crashy', cwd: dir, command: [process.execPath, '-e', script] }],
      logDir: join(dir, 'logs'),
      env: {},
      logger: createLogger({ stream: new PassThrough().resume() }),
      beforeStart: () => writeFileSync(secret, `t${++minted}`),
      restartDelayMs: 50,
    });
    processes.start();
    await eventually('three starts', () => Promise.resolve(processes!.status()[0]!.starts >= 3 ? true : undefined), {
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    const log = await eventually(
      'the log of three runs',
      () => {
        const text = readFileSync(join(dir, 'logs', 'crashy.log'), 'utf8');
        return Promise.resolve(text.includes('token=t3') ? text : undefined);
      },
      { timeoutMs: 5_000, intervalMs: 50 },
    );
    expect(log).to.include('token=t1\n').and.include('token=t2\n');
  });

  it('stops every binary with SIGTERM and starts none again', async () => {
    processes = new BinaryProcesses({
      commands: [
        {
          name: 'sleeper',
          cwd: dir,
          command: [
            process.execPath,
            '-e',
            'setInterval(() => {}, 1000); process.on("SIGTERM", () => process.exit(0));',
          ],
        },
      ],
      logDir: join(dir, 'logs'),
      env: {},
      logger: createLogger({ stream: new PassThrough().resume() }),
      restartDelayMs: 10,
    });
    processes.start();
    const pid = processes.status()[0]!.pid;
    expect(pid).to.be.a('number');
    await processes.stop();
    await new Promise((r) => setTimeout(r, 100));
    expect(processes.status()[0]).to.include({ pid: undefined, starts: 1 });
  });
});
