import { expect } from 'chai';
import { planRollout, type RolloutMachine, type RolloutPlanInput } from '../../../lib/machineset/rollout-planner.js';
import { resolveRolloutBounds } from '../../../lib/machineset/rollout-settings.js';

type Kind = 'old' | 'new';
const m = (name: string, kind: Kind, opts: Partial<RolloutMachine> = {}): RolloutMachine => ({
  name,
  upToDate: kind === 'new',
  available: true,
  failed: false,
  deleting: false,
  ...opts,
});
const olds = (n: number, opts: Partial<RolloutMachine> = {}) =>
  Array.from({ length: n }, (_, i) => m(`old-${i}`, 'old', opts));
const news = (n: number, opts: Partial<RolloutMachine> = {}) =>
  Array.from({ length: n }, (_, i) => m(`new-${i}`, 'new', opts));

function input(
  machines: RolloutMachine[],
  o: Partial<RolloutPlanInput> & { surge?: string; unavailable?: string } = {},
) {
  const replicas = o.replicas ?? 3;
  return {
    replicas,
    strategy: o.strategy ?? 'RollingUpdate',
    paused: o.paused ?? false,
    bounds:
      o.bounds ?? resolveRolloutBounds({ maxSurge: o.surge ?? '1', maxUnavailable: o.unavailable ?? '0' }, replicas),
    machines,
  } satisfies RolloutPlanInput;
}

/**
 * Plays a rollout to the end: each step applies the plan (deletions finish at once, creations arrive unavailable
 * and become available on the next step), checking the bounds after every change. Returns the steps taken.
 */
function simulate(
  start: RolloutMachine[],
  o: Parameters<typeof input>[1] & { minAvailable: number; maxTotal: number },
) {
  let machines = start;
  let created = 0;
  for (let step = 1; step <= 50; step++) {
    const plan = planRollout(input(machines, o));
    if (plan.state === 'UpToDate' && plan.create === 0 && plan.delete.length === 0) return step;
    // A deletion takes a step to finish (drain, terminate): the Machine still counts meanwhile.
    machines = machines
      .filter((x) => !x.deleting)
      .map((x) => (plan.delete.includes(x.name) ? { ...x, deleting: true, available: false } : x));
    const available = machines.filter((x) => x.available && !x.deleting).length;
    expect(available, `available at step ${step}`).to.be.at.least(o.minAvailable);
    machines = [
      ...machines,
      ...Array.from({ length: plan.create }, () => m(`made-${created++}`, 'new', { available: false })),
    ];
    expect(machines.length, `machines at step ${step}`).to.be.at.most(o.maxTotal);
    // New Machines come up.
    machines = machines.map((x) => (x.deleting ? x : { ...x, available: true }));
  }
  throw new Error('rollout did not converge in 50 steps');
}

describe('rollout planner', () => {
  describe('bounds from the annotations', () => {
    it('rounds a percentage surge up and a percentage unavailable down, as a Deployment does', () => {
      expect(resolveRolloutBounds({ maxSurge: '25%', maxUnavailable: '25%' }, 10)).to.deep.equal({
        maxSurge: 3,
        maxUnavailable: 2,
      });
      expect(resolveRolloutBounds({ maxSurge: '10%', maxUnavailable: '10%' }, 3)).to.deep.equal({
        maxSurge: 1,
        maxUnavailable: 0,
      });
    });

    it('lets one Machine be unavailable when both round to 0, and never more than replicas', () => {
      expect(resolveRolloutBounds({ maxSurge: '0%', maxUnavailable: '10%' }, 3)).to.deep.equal({
        maxSurge: 0,
        maxUnavailable: 1,
      });
      expect(resolveRolloutBounds({ maxSurge: '0', maxUnavailable: '5' }, 2)).to.deep.equal({
        maxSurge: 0,
        maxUnavailable: 2,
      });
    });
  });

  it('with surge 1 / unavailable 0 creates one new Machine and deletes nothing while it is unavailable', () => {
    const plan = planRollout(input(olds(3)));
    expect(plan).to.include({ state: 'RollingUpdate', create: 1, minAvailable: 3, maxTotal: 4 });
    expect(plan.delete).to.deep.equal([]);
    const waiting = planRollout(input([...olds(3), m('new-0', 'new', { available: false })]));
    expect(waiting.create).to.equal(0);
    expect(waiting.delete).to.deep.equal([]);
  });

  it('deletes one outdated Machine once the new one is available, and creates the next only when the deleted one is gone', () => {
    const plan = planRollout(input([...olds(3), ...news(1)]));
    expect(plan.delete).to.deep.equal(['old-0']);
    expect(plan.replace).to.deep.equal(['old-0']);
    expect(plan.create).to.equal(0);
    const deleting = planRollout(input([m('old-0', 'old', { deleting: true }), ...olds(3).slice(1), ...news(1)]));
    expect(deleting.create, 'the draining Machine still holds its instance').to.equal(0);
    expect(deleting.delete).to.deep.equal([]);
  });

  it('never holds more than replicas + maxSurge Machines nor fewer available than replicas - maxUnavailable', () => {
    for (const [replicas, surge, unavailable] of [
      [3, '1', '0'],
      [3, '0', '1'],
      [5, '2', '1'],
      [10, '25%', '25%'],
      [4, '50%', '0'],
      [1, '0', '1'],
    ] as const) {
      const bounds = resolveRolloutBounds({ maxSurge: surge, maxUnavailable: unavailable }, replicas);
      const steps = simulate(olds(replicas), {
        replicas,
        bounds,
        minAvailable: replicas - bounds.maxUnavailable,
        maxTotal: replicas + bounds.maxSurge,
      });
      expect(steps, `${replicas}/${surge}/${unavailable}`).to.be.greaterThan(1);
    }
  });

  it('with surge 0 / unavailable 1 deletes first and creates once the deletion is done', () => {
    const first = planRollout(input(olds(3), { surge: '0', unavailable: '1' }));
    expect(first.delete).to.have.length(1);
    expect(first.create, 'the deleted Machine still counts against replicas + 0').to.equal(0);
    const next = planRollout(input(olds(3).slice(1), { surge: '0', unavailable: '1' }));
    expect(next.create).to.equal(1);
    expect(next.delete, 'one is already unavailable').to.deep.equal([]);
  });

  it('deletes unavailable outdated Machines first, without touching availability', () => {
    const machines = [...olds(2), m('old-sick', 'old', { available: false }), m('new-0', 'new', { available: false })];
    const plan = planRollout(input(machines));
    expect(plan.delete).to.deep.equal(['old-sick']);
  });

  it('removes outdated Machines first when scaled down during a rollout', () => {
    const machines = [...news(2), ...olds(3)];
    const plan = planRollout(input(machines, { replicas: 2 }));
    expect(plan.delete).to.have.members(['old-0', 'old-1', 'old-2']);
    expect(plan.create).to.equal(0);
  });

  it('scaled down during a rollout, takes the Machine the autoscaler marked before any outdated one', () => {
    const machines = [m('marked', 'new', { deleteFirst: true }), ...news(1), ...olds(3)];
    const plan = planRollout(input(machines, { replicas: 2 }));
    expect(plan.delete[0]).to.equal('marked');
    expect(plan.delete.slice(1)).to.have.members(['old-0', 'old-1']);
    const paused = planRollout(input(machines, { replicas: 4, paused: true }));
    expect(paused.delete).to.deep.equal(['marked']);
  });

  it('scaled up during a rollout, creates new Machines up to the new cap and keeps the old until they can go', () => {
    const machines = [...olds(3), m('new-0', 'new')];
    const plan = planRollout(input(machines, { replicas: 5 }));
    expect(plan.create).to.equal(2);
    expect(plan.delete).to.deep.equal([]);
    const steps = simulate(machines, { replicas: 5, minAvailable: 4, maxTotal: 6 });
    expect(steps).to.be.greaterThan(1);
  });

  it('stalls on a failed new Machine: no outdated Machine is deleted and no more surge is made', () => {
    const machines = [...olds(3), m('new-0', 'new', { available: false, failed: true })];
    const plan = planRollout(input(machines, { surge: '2' }));
    expect(plan.state).to.equal('RolloutStalled');
    expect(plan.delete).to.deep.equal([]);
    expect(plan.create).to.equal(0);
  });

  it('resumes after a revert: the failed Machine is now the outdated one and goes first', () => {
    // After the template is reverted the old Machines match again and the failed one does not.
    const machines = [...news(3), m('bad', 'old', { available: false, failed: true })];
    const plan = planRollout(input(machines));
    expect(plan.state).to.equal('RollingUpdate');
    expect(plan.delete).to.deep.equal(['bad']);
    expect(plan.create).to.equal(0);
  });

  it('paused: replaces nothing, still scales, outdated first', () => {
    const paused = planRollout(input([...olds(3), ...news(1)], { paused: true }));
    expect(paused).to.include({ state: 'RolloutPaused', create: 0 });
    expect(paused.delete).to.deep.equal(['old-0']);
    const keep = planRollout(input([...olds(2), ...news(1)], { paused: true }));
    expect(keep.delete).to.deep.equal([]);
    expect(keep.create).to.equal(0);
    const up = planRollout(input(olds(3), { paused: true, replicas: 4 }));
    expect(up.create).to.equal(1);
  });

  it('OnDelete leaves outdated Machines alone and scales by the delete-policy order, as the reference', () => {
    const machines = [...news(1), ...olds(3)];
    const plan = planRollout(input(machines, { strategy: 'OnDelete' }));
    expect(plan.state).to.equal('OnDelete');
    expect(plan.delete).to.deep.equal(['new-0']);
    expect(plan.counts).to.include({ upToDate: 1, outdated: 3 });
  });

  it('a restart (every Machine outdated) replaces each Machine exactly once', () => {
    let machines = olds(3);
    const deleted: string[] = [];
    for (let step = 0; step < 30; step++) {
      const plan = planRollout(input(machines));
      if (plan.state === 'UpToDate') break;
      deleted.push(...plan.delete);
      machines = [
        ...machines.filter((x) => !plan.delete.includes(x.name)),
        ...Array.from({ length: plan.create }, (_, i) => m(`made-${step}-${i}`, 'new')),
      ];
    }
    expect(deleted.sort()).to.deep.equal(['old-0', 'old-1', 'old-2']);
    expect(machines.every((x) => x.upToDate)).to.equal(true);
    expect(machines).to.have.length(3);
  });

  it('keeps counting a rollout as in progress while outdated Machines are still being deleted', () => {
    const plan = planRollout(input([...news(3), m('old-0', 'old', { deleting: true })]));
    expect(plan.state).to.equal('RollingUpdate');
    expect(plan.counts).to.include({ outdated: 1, outdatedDeleting: 1, upToDate: 3 });
    expect(plan.create).to.equal(0);
  });
});
