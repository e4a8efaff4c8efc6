import { expect } from 'chai';
import type { Machine } from '../../../lib/apis/machine-types.js';
import {
  DeletePriority,
  UnsupportedDeletePolicyError,
  deletePriority,
  hasDeleteAnnotation,
  machinesToDelete,
  resolveDeletePolicy,
} from '../../../lib/machineset/delete-policy.js';
import { seededRandom } from '../../../lib/machineset/random.js';

function machine(
  name: string,
  opts: {
    created?: string;
    node?: boolean;
    annotations?: Record<string, string>;
    errorReason?: string;
    errorMessage?: string;
    phase?: string;
    deleting?: boolean;
  } = {},
): Machine {
  return {
    metadata: {
      name,
      uid: `uid-${name}`,
      creationTimestamp: opts.created,
      annotations: opts.annotations,
      deletionTimestamp: opts.deleting ? '2026-01-01T00:00:00Z' : undefined,
    },
    status: {
      nodeRef: opts.node === false ? undefined : { name: `node-${name}` },
      errorReason: opts.errorReason,
      errorMessage: opts.errorMessage,
      phase: opts.phase,
    },
  };
}

const names = (ms: Machine[]) => ms.map((m) => m.metadata.name);

describe('MachineSet delete policy', () => {
  describe('resolveDeletePolicy', () => {
    it('treats an empty or missing policy as Random', () => {
      expect(resolveDeletePolicy(undefined)).to.equal('Random');
      expect(resolveDeletePolicy('')).to.equal('Random');
      expect(resolveDeletePolicy('Random')).to.equal('Random');
      expect(resolveDeletePolicy('Oldest')).to.equal('Oldest');
      expect(resolveDeletePolicy('Newest')).to.equal('Newest');
    });

    it('rejects an unknown policy with the reference message', () => {
      expect(() => resolveDeletePolicy('Biggest'))
        .to.throw(UnsupportedDeletePolicyError)
        .with.property('message', "unsupported delete policy Biggest, must be one of 'Random', 'Newest', or 'Oldest'");
    });
  });

  describe('deletePriority', () => {
    it('ranks deleting over annotated/failed over node-less over healthy, with the reference numbers', () => {
      expect(deletePriority(machine('a', { deleting: true }))).to.equal(DeletePriority.mustDelete);
      expect(deletePriority(machine('b', { annotations: { 'machine.openshift.io/delete-machine': 'yes' } }))).to.equal(
        DeletePriority.betterDelete,
      );
      expect(deletePriority(machine('c', { errorReason: 'InvalidConfiguration' }))).to.equal(
        DeletePriority.betterDelete,
      );
      expect(deletePriority(machine('d', { errorMessage: 'boom' }))).to.equal(DeletePriority.betterDelete);
      expect(deletePriority(machine('e', { phase: 'Failed' }))).to.equal(DeletePriority.betterDelete);
      expect(deletePriority(machine('f', { node: false }))).to.equal(DeletePriority.preferDelete);
      expect(deletePriority(machine('g'))).to.equal(DeletePriority.couldDelete);
    });

    it('honours the legacy annotation and ignores an empty annotation value', () => {
      expect(
        hasDeleteAnnotation(
          machine('a', { annotations: { 'machine.openshift.io/cluster-api-delete-machine': 'true' } }),
        ),
      ).to.equal(true);
      expect(
        hasDeleteAnnotation(machine('b', { annotations: { 'machine.openshift.io/delete-machine': '' } })),
      ).to.equal(false);
      expect(hasDeleteAnnotation(machine('c', { annotations: { 'cluster.k8s.io/delete-machine': 'yes' } }))).to.equal(
        false,
      );
    });
  });

  describe('machinesToDelete', () => {
    const random = () => seededRandom(42);

    it('returns every machine when asked for at least as many as there are, none for zero or less', () => {
      const ms = [machine('a'), machine('b')];
      expect(names(machinesToDelete(ms, 2, 'Random', random()))).to.deep.equal(['a', 'b']);
      expect(names(machinesToDelete(ms, 5, 'Oldest', random()))).to.deep.equal(['a', 'b']);
      expect(machinesToDelete(ms, 0, 'Random', random())).to.deep.equal([]);
      expect(machinesToDelete(ms, -1, 'Random', random())).to.deep.equal([]);
    });

    it('takes the annotated machine first under every policy', () => {
      const ms = [
        machine('old', { created: '2026-01-01T00:00:00Z' }),
        machine('marked', {
          created: '2026-01-02T00:00:00Z',
          annotations: { 'machine.openshift.io/delete-machine': 'true' },
        }),
        machine('new', { created: '2026-01-03T00:00:00Z' }),
      ];
      for (const p of ['Random', 'Oldest', 'Newest'] as const) {
        expect(names(machinesToDelete(ms, 1, p, random())), p).to.deep.equal(['marked']);
      }
    });

    it('takes failed and node-less machines before healthy ones under every policy', () => {
      const ms = [
        machine('healthy-old', { created: '2026-01-01T00:00:00Z' }),
        machine('healthy-new', { created: '2026-01-05T00:00:00Z' }),
        machine('no-node', { created: '2026-01-03T00:00:00Z', node: false }),
        machine('failed', { created: '2026-01-04T00:00:00Z', phase: 'Failed', errorMessage: 'x' }),
      ];
      for (const p of ['Random', 'Oldest', 'Newest'] as const) {
        expect(names(machinesToDelete(ms, 2, p, random())), p).to.deep.equal(['failed', 'no-node']);
      }
    });

    it('Oldest deletes by creation time, oldest first, not by name', () => {
      const ms = [
        machine('a', { created: '2026-03-01T00:00:00Z' }),
        machine('b', { created: '2026-01-01T00:00:00Z' }),
        machine('c', { created: '2026-02-01T00:00:00Z' }),
      ];
      expect(names(machinesToDelete(ms, 2, 'Oldest', random()))).to.deep.equal(['b', 'c']);
    });

    it('Newest deletes by creation time, newest first', () => {
      const ms = [
        machine('a', { created: '2026-03-01T00:00:00Z' }),
        machine('b', { created: '2026-01-01T00:00:00Z' }),
        machine('c', { created: '2026-02-01T00:00:00Z' }),
      ];
      expect(names(machinesToDelete(ms, 2, 'Newest', random()))).to.deep.equal(['a', 'c']);
    });

    it('never prefers a machine of unknown age under Newest (the reference ranked it first)', () => {
      const ms = [
        machine('unknown'),
        machine('new', { created: '2026-03-01T00:00:00Z' }),
        machine('old', { created: '2026-01-01T00:00:00Z' }),
      ];
      expect(names(machinesToDelete(ms, 1, 'Newest', random()))).to.deep.equal(['new']);
      expect(names(machinesToDelete(ms, 1, 'Oldest', random()))).to.deep.equal(['old']);
    });

    it('Random picks among equals at random, reproducibly for one seed', () => {
      const ms = Array.from({ length: 10 }, (_, i) => machine(`m${i}`));
      const first = names(machinesToDelete(ms, 3, 'Random', seededRandom(1)));
      expect(names(machinesToDelete(ms, 3, 'Random', seededRandom(1)))).to.deep.equal(first);
      const seen = new Set<string>();
      for (let seed = 0; seed < 50; seed++) seen.add(names(machinesToDelete(ms, 1, 'Random', seededRandom(seed)))[0]!);
      // A deterministic sort would always pick the same machine.
      expect(seen.size).to.be.greaterThan(5);
    });

    it('does not modify the input list', () => {
      const ms = [machine('b', { created: '2026-02-01T00:00:00Z' }), machine('a', { created: '2026-01-01T00:00:00Z' })];
      machinesToDelete(ms, 1, 'Oldest', random());
      expect(names(ms)).to.deep.equal(['b', 'a']);
    });

    it('takes machines on a capacity fallback entry first within their class, then follows the policy', () => {
      const onEntry = (m: Machine, index: number): Machine => {
        m.status = {
          ...m.status,
          providerStatus: { capacityEntry: { index, instanceType: 't', zone: 'z', market: 'on-demand' } },
        };
        return m;
      };
      const ms = [
        onEntry(machine('old-primary', { created: '2026-01-01T00:00:00Z' }), 0),
        onEntry(machine('mid-fallback', { created: '2026-01-02T00:00:00Z' }), 1),
        machine('new-plain', { created: '2026-01-03T00:00:00Z' }),
        onEntry(machine('newest-fallback', { created: '2026-01-04T00:00:00Z' }), 2),
        machine('failed', { errorReason: 'InsufficientResources' }),
      ];
      expect(names(machinesToDelete(ms, 4, 'Oldest', random()))).to.deep.equal([
        'failed',
        'mid-fallback',
        'newest-fallback',
        'old-primary',
      ]);
      expect(names(machinesToDelete(ms, 3, 'Newest', random()))).to.deep.equal([
        'failed',
        'newest-fallback',
        'mid-fallback',
      ]);
    });
  });
});
