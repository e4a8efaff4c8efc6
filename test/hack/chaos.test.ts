// The short chaos run of npm test: a few seeded runs with the controllers in-process (the long run with the
// real binaries is `npm run chaos`). Faults stop, the system settles, every invariant holds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runChaos } from '../../hack/chaos/chaos-run.js';

describe('chaos: seeded workload and faults against in-process controllers', function () {
  this.timeout(90_000);
  let root: string;

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'chaos-test-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  for (const seed of [1, 2]) {
    it(`seed ${seed}: after faults stop, every invariant holds and no secret leaked`, async () => {
      const r = await runChaos({
        seed,
        stateDir: join(root, `seed-${seed}`),
        controllers: 'in-process',
        durationMs: 5_000,
        tickMs: 200,
        maxReplicas: 3,
        settleTimeoutMs: 45_000,
      });
      expect(
        Object.values(r.faultsInjected).reduce((a, b) => a + b, 0),
        'faults injected',
      ).to.be.greaterThan(3);
      expect(r.violations).to.deep.equal([]);
    });
  }
});
