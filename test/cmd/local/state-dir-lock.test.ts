import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  lockStateDir,
  processIsAlive,
  STATE_DIR_LOCK_FILE,
  StateDirLockedError,
} from '../../../cmd/local/state-dir-lock.js';

describe('machine-api-local state directory lock', () => {
  let dir: string;
  const lockPath = () => join(dir, STATE_DIR_LOCK_FILE);
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'state-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('records the owner pid and provider, and removes the file on release', () => {
    const lock = lockStateDir(dir, { provider: 'aws', pid: 4242, now: () => new Date('2026-11-26T06:00:00Z') });
    expect(JSON.parse(readFileSync(lockPath(), 'utf8'))).to.deep.equal({
      pid: 4242,
      provider: 'aws',
      startedAt: '2026-11-26T06:00:00.000Z',
    });
    lock.release();
    lock.release();
    expect(existsSync(lockPath())).to.equal(false);
  });

  it('refuses a second run while the owner lives, naming its pid, its provider and the flag to choose another directory', () => {
    const first = lockStateDir(dir, { provider: 'aws', pid: 4242, isAlive: () => true });
    let err: unknown;
    try {
      lockStateDir(dir, { provider: 'gcp', pid: 5151, isAlive: (pid) => pid === 4242 });
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(StateDirLockedError);
    expect((err as StateDirLockedError).owner.pid).to.equal(4242);
    expect((err as Error).message)
      .to.contain(`state directory ${dir} is in use by machine-api-local pid 4242 (provider aws`)
      .and.contain('--state-dir');
    expect(JSON.parse(readFileSync(lockPath(), 'utf8')).pid, 'the running owner keeps its lock').to.equal(4242);
    first.release();
  });

  it('takes over a lock whose owner is gone (a run killed with -9), and an unreadable one', () => {
    lockStateDir(dir, { provider: 'aws', pid: 4242 }); // never released
    const second = lockStateDir(dir, { provider: 'aws', pid: 5151, isAlive: () => false });
    expect(JSON.parse(readFileSync(lockPath(), 'utf8')).pid).to.equal(5151);
    second.release();

    writeFileSync(lockPath(), '{"pid": 12');
    const third = lockStateDir(dir, { provider: 'aws', pid: 6161, isAlive: () => true });
    expect(JSON.parse(readFileSync(lockPath(), 'utf8')).pid).to.equal(6161);
    third.release();
  });

  it('does not remove a lock another run took over after ours went stale', () => {
    const stale = lockStateDir(dir, { provider: 'aws', pid: 4242 });
    const taker = lockStateDir(dir, { provider: 'aws', pid: 5151, isAlive: () => false });
    stale.release();
    expect(JSON.parse(readFileSync(lockPath(), 'utf8')).pid).to.equal(5151);
    taker.release();
  });

  it('asks the OS whether a pid runs', () => {
    expect(processIsAlive(process.pid)).to.equal(true);
    expect(processIsAlive(2 ** 22 + 12345)).to.equal(false);
  });
});
