import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNamespace, failure, startEnv, W, widget } from './helpers.js';

describe('envtest control plane: data directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'envtest-data-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps objects, uids and the resourceVersion counter across a restart; old watch positions are gone', async () => {
    const first = await startEnv({ dataDir: dir });
    await createNamespace(first, 'keep');
    const created = await first.custom.createNamespacedCustomObject({ ...W, namespace: 'keep', body: widget('kept') });
    await first.cp.stop();
    expect(existsSync(join(dir, 'state.json'))).to.equal(true);

    const second = await startEnv({ dataDir: dir });
    try {
      const got = await second.custom.getNamespacedCustomObject({ ...W, namespace: 'keep', name: 'kept' });
      expect(got).to.deep.equal(created);
      const next = await second.custom.createNamespacedCustomObject({ ...W, namespace: 'keep', body: widget('later') });
      expect(Number(next.metadata.resourceVersion)).to.be.greaterThan(Number(created.metadata.resourceVersion));
    } finally {
      await second.cp.stop();
    }
  });

  it('writes snapshots by rename, so a leftover temporary file from a crash is ignored', async () => {
    const env = await startEnv({ dataDir: dir });
    await createNamespace(env, 'crash');
    await env.cp.stop();
    writeFileSync(join(dir, 'state.json.tmp-12345'), '{"resourceVersion": 1, "items": [');
    const again = await startEnv({ dataDir: dir });
    try {
      expect((await again.core.readNamespace({ name: 'crash' })).metadata?.name).to.equal('crash');
    } finally {
      await again.cp.stop();
    }
    expect(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')).items.length).to.be.greaterThan(0);
  });

  it('refuses to start on a corrupt snapshot instead of serving nothing', async () => {
    writeFileSync(join(dir, 'state.json'), 'not json');
    let error: unknown;
    try {
      await startEnv({ dataDir: dir });
    } catch (err) {
      error = err;
    }
    expect(String(error)).to.match(/state\.json is not a valid snapshot/);
  });

  it('forgets deleted objects across a restart', async () => {
    const env = await startEnv({ dataDir: dir });
    await createNamespace(env, 'gone');
    await env.custom.createNamespacedCustomObject({ ...W, namespace: 'gone', body: widget('tmp') });
    await env.custom.deleteNamespacedCustomObject({ ...W, namespace: 'gone', name: 'tmp' });
    await env.cp.stop();
    const again = await startEnv({ dataDir: dir });
    try {
      expect(
        (await failure(again.custom.getNamespacedCustomObject({ ...W, namespace: 'gone', name: 'tmp' }))).code,
      ).to.equal(404);
    } finally {
      await again.cp.stop();
    }
  });
});
