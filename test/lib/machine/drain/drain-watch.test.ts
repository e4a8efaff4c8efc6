// The drain controller's watch predicate: only a Machine being deleted costs it a reconcile.
import { expect } from 'chai';
import type { Machine } from '../../../../lib/apis/machine-types.js';
import { drainWatchPredicate, isDrainCandidate } from '../../../../lib/machine/drain/drain-watch.js';

const machine = (deleted: boolean, phase?: string): Machine => ({
  metadata: {
    name: 'm',
    namespace: 'ns',
    ...(deleted ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  ...(phase ? { status: { phase } } : {}),
});

describe('drain controller watch predicate', () => {
  it('drops every event of a Machine nobody is deleting: creation, status writes, resyncs and deletion', () => {
    for (const phase of [undefined, 'Provisioning', 'Running', 'Failed']) {
      const m = machine(false, phase);
      expect(drainWatchPredicate('add', m)).to.equal(false);
      expect(drainWatchPredicate('update', m)).to.equal(false);
      expect(drainWatchPredicate('update', m)).to.equal(false);
      expect(drainWatchPredicate('delete', m)).to.equal(false);
    }
  });

  it('waits for the machine controller to mark a deleted Machine Deleting, then passes its events and resyncs', () => {
    expect(drainWatchPredicate('update', machine(true, 'Running'))).to.equal(false);
    const deleting = machine(true, 'Deleting');
    expect(isDrainCandidate(deleting)).to.equal(true);
    expect(drainWatchPredicate('update', deleting)).to.equal(true);
    expect(drainWatchPredicate('update', deleting)).to.equal(true);
    expect(drainWatchPredicate('add', deleting)).to.equal(true);
  });

  it('passes the final delete of a deleted Machine, whose reconcile forgets its drain backoff', () => {
    expect(drainWatchPredicate('delete', machine(true, 'Deleting'))).to.equal(true);
    expect(drainWatchPredicate('delete', machine(true))).to.equal(true);
  });
});
