import { expect } from 'chai';
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Journal } from '../../../../sim/apiserver/persistence/journal.js';
import { Store } from '../../../../sim/apiserver/storage/store.js';
import type { KubeObject } from '../../../../lib/apis/meta.js';

const cm = (name: string, value: string): KubeObject & { data: Record<string, string> } => ({
  metadata: { namespace: 'n', name, uid: `uid-${name}` },
  data: { value },
});
const Key = '/configmaps';

/** A store loaded from the directory as a restarted process would load it (the earlier journal is never closed: a crash). */
function reopen(dir: string, warnings: string[] = []): { store: Store; journal: Journal } {
  const store = new Store(100);
  const journal = Journal.open(store, dir, { onWarning: (m) => warnings.push(m) });
  return { store, journal };
}

describe('envtest journal: write-ahead log, snapshot and replay', () => {
  let dir: string;
  const open: Journal[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'envtest-journal-'));
  });
  afterEach(async () => {
    for (const j of open.splice(0)) await j.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('has every change that durable() confirmed after a crash, with the resourceVersion counter', async () => {
    const { store, journal } = reopen(dir);
    store.put(Key, cm('a', '1'));
    store.put(Key, cm('b', '1'));
    store.put(Key, cm('a', '2'));
    store.remove(Key, cm('b', '1'));
    await journal.durable(store.currentRv());
    expect(journal.durableRv()).to.equal(4);

    const after = reopen(dir);
    open.push(journal, after.journal);
    expect(after.store.currentRv()).to.equal(4);
    expect((after.store.get(Key, 'n', 'a') as ReturnType<typeof cm>).data.value).to.equal('2');
    expect(after.store.get(Key, 'n', 'b')).to.equal(undefined);
    expect(after.store.lookupUid('uid-a')).to.deep.equal({ typeKey: Key, namespace: 'n', name: 'a' });
    // Nothing from before the restart can be resumed: a watch from there must re-list.
    expect(after.store.eventsSince(Key, 3)).to.equal(undefined);
    expect(after.store.put(Key, cm('c', '1')).rv).to.equal(5);
  });

  it('does not call a change durable, nor hand it to listeners, before its batch is synced', async () => {
    const { store, journal } = reopen(dir);
    open.push(journal);
    const seen: number[] = [];
    journal.onDurable((ev) => seen.push(ev.rv));
    store.put(Key, cm('a', '1'));
    store.put(Key, cm('b', '1'));
    expect(journal.durableRv()).to.equal(0);
    expect(seen).to.deep.equal([]);
    await journal.durable(2);
    expect(seen).to.deep.equal([1, 2]);
  });

  it('ignores a torn log tail left by a crash, with a warning, and keeps serving and logging after it', async () => {
    const first = reopen(dir);
    first.store.put(Key, cm('a', '1'));
    await first.journal.durable(1);
    const segment = readdirSync(dir).find((n) => n.startsWith('wal-')) ?? '';
    appendFileSync(join(dir, segment), '{"rv":2,"op":"put","typeKey":"/configm');

    const warnings: string[] = [];
    const second = reopen(dir, warnings);
    expect(warnings.join()).to.match(/ignored 38 bytes at the end of .*wal-0000000001\.jsonl/);
    expect(second.store.currentRv()).to.equal(1);
    second.store.put(Key, cm('b', '1'));
    await second.journal.durable(2);

    const third = reopen(dir);
    open.push(first.journal, second.journal, third.journal);
    expect(third.store.list(Key).map((o) => o.metadata.name)).to.deep.equal(['a', 'b']);
    expect(third.store.currentRv()).to.equal(2);
  });

  it('compacts the log into a snapshot once it grows past the limit, and replays only what came after it', async () => {
    const store = new Store(100);
    const journal = Journal.open(store, dir, { compactAfterBytes: 2_000 });
    for (let i = 0; i < 60; i++) store.put(Key, cm(`o${i % 10}`, String(i)));
    await journal.durable(store.currentRv());
    // Compaction runs in the background; writes keep going meanwhile.
    for (let i = 0; i < 60 && readdirSync(dir).filter((n) => n.startsWith('wal-')).length > 1; i++)
      await new Promise((r) => setTimeout(r, 20));
    store.remove(Key, cm('o3', ''));
    await journal.durable(store.currentRv());
    const files = readdirSync(dir);
    expect(files).to.include('state.json');
    expect(files.filter((n) => n.startsWith('wal-')).length, files.join()).to.be.at.most(2);

    const after = reopen(dir);
    open.push(journal, after.journal);
    expect(after.store.currentRv()).to.equal(61);
    expect(
      after.store.list(Key).map((o) => `${o.metadata.name}=${(o as ReturnType<typeof cm>).data.value}`),
    ).to.deep.equal(['o0=50', 'o1=51', 'o2=52', 'o4=54', 'o5=55', 'o6=56', 'o7=57', 'o8=58', 'o9=59']);
  });

  it('writes a final snapshot on close and leaves no log behind', async () => {
    const { store, journal } = reopen(dir);
    store.put(Key, cm('a', '1'));
    await journal.close();
    expect(readdirSync(dir)).to.deep.equal(['state.json']);
    const after = reopen(dir);
    open.push(after.journal);
    expect(after.store.currentRv()).to.equal(1);
  });
});
