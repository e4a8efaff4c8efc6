// The end-to-end story of a Machine with capacity fallbacks during a stock-out, run by each provider on the local
// control plane with its real SDK against its emulator, e.g.
//   describeCapacityFallback('aws', async () => ({ bed, namespace, spec, choices, setCapacity, ... }));
// The bed's machine controller must be wired with SHORT_CAPACITY_WINDOW, so that the window ends in seconds.
import assert from 'node:assert/strict';
import {
  MachineAZLabel,
  MachineInstanceTypeLabel,
  MachineInterruptibleInstanceLabel,
} from '../../lib/apis/constants.js';
import type { Machine } from '../../lib/apis/machine-types.js';
import type { CapacityChoice } from '../../lib/cloud/capacity-memory.js';
import { readCommonProviderStatus } from '../../lib/cloud/provider-condition.js';
import { Events, Machines } from '../../lib/client/resources.js';
import { CapacityFallbackReason } from '../../lib/machine/cloud-actuator/capacity-entries.js';
import { bddGlobals } from './bdd-globals.js';
import { eventually, type ProviderTestBed, type WiredProvider } from './provider-test-bed.js';

export interface CapacityFallbackHarness {
  bed: ProviderTestBed<WiredProvider>;
  namespace: string;
  /** A Machine (not created yet) whose providerSpec asks for `entries[0]`, falling back to the others in order. */
  machine(name: string, entries: readonly CapacityChoice[]): Machine;
  /** Three on-demand choices with capacity: two types in one zone, and the first type in another zone. */
  choices: readonly [CapacityChoice, CapacityChoice, CapacityChoice];
  /** A spot choice, where the cloud has a spot market. */
  spot?: CapacityChoice;
  /** Takes a choice's capacity away (false) or gives it back (true). */
  setCapacity(choice: CapacityChoice, available: boolean): void;
  /** Launch calls the cloud has answered so far, refused ones included. */
  launchCalls(): number;
  /** The next launch that takes effect loses its reply (as a connection dropped on the way back). */
  loseNextLaunchReply(): void;
  /** Launch replies the cloud lost so far. */
  lostLaunchReplies(): number;
  /** Instances in the cloud, not terminated nor terminating, that belong to this Machine. */
  liveInstances(machine: Machine): number | Promise<number>;
  cleanup(): Promise<void>;
}

/** Mocha's `it`, whose test may skip itself. */
type SkippableIt = (title: string, fn: (this: { skip(): void }) => Promise<void>) => void;

const entryOf = (m: Machine) => readCommonProviderStatus(m.status?.providerStatus).status.capacityEntry;

export function describeCapacityFallback(cloud: string, setup: () => Promise<CapacityFallbackHarness>): void {
  const { describe, before, after, ...g } = bddGlobals('describeCapacityFallback');
  const it: SkippableIt = g.it;
  describe(`${cloud}: a Machine with capacity fallbacks during a stock-out`, () => {
    let h: CapacityFallbackHarness;
    before(async () => {
      h = await setup();
    });
    after(async () => {
      await h?.cleanup();
    });

    const client = () => h.bed.env.client;
    const create = (name: string, entries: readonly CapacityChoice[]) =>
      client().create(Machines, h.machine(name, entries));
    const events = async (name: string) =>
      (await client().list(Events, { namespace: h.namespace })).items.filter((e) => e.involvedObject.name === name);

    it('runs on the first fallback when the primary is refused, and records which entry it runs on', async () => {
      const [a, b, c] = h.choices;
      h.setCapacity(a, false);
      await create('fallback-1', [a, b, c]);
      const running = await h.bed.waitForPhase('fallback-1', 'Running');
      assert.deepEqual(entryOf(running), { index: 1, ...b });
      assert.equal(running.metadata.labels?.[MachineInstanceTypeLabel], b.instanceType);
      assert.equal(running.metadata.labels?.[MachineAZLabel], b.zone);
      assert.equal(await h.liveInstances(running), 1);
      const event = await eventually('the CapacityFallback event', async () =>
        (await events('fallback-1')).find((e) => e.reason === CapacityFallbackReason),
      );
      assert.ok(event.message?.includes(`refused: primary ${a.instanceType}`), event.message);
    });

    it('skips the refused primary for the next Machines: one launch each', async () => {
      const [a, b, c] = h.choices;
      const before = h.launchCalls();
      for (const n of [2, 3, 4]) await create(`fallback-${n}`, [a, b, c]);
      for (const n of [2, 3, 4]) assert.equal(entryOf(await h.bed.waitForPhase(`fallback-${n}`, 'Running'))?.index, 1);
      assert.equal(h.launchCalls() - before, 3);
    });

    it('keeps one instance when the reply of a fallback launch is lost', async () => {
      const [a, b] = h.choices;
      const lost = h.lostLaunchReplies();
      h.loseNextLaunchReply();
      await create('lost-reply', [a, b]);
      const running = await h.bed.waitForPhase('lost-reply', 'Running');
      assert.equal(h.lostLaunchReplies() - lost, 1, 'the launch of the fallback lost its reply');
      assert.equal(entryOf(running)?.index, 1);
      assert.equal(await h.liveInstances(running), 1);
    });

    it('fails the Machine only after every entry was refused for the whole window, listing each refusal', async () => {
      const [a, b, c] = h.choices;
      h.setCapacity(b, false);
      h.setCapacity(c, false);
      try {
        await create('all-refused', [a, b, c]);
        const failed = await h.bed.waitForPhase('all-refused', 'Failed');
        assert.equal(failed.status?.errorReason, 'InsufficientResources');
        const message = failed.status?.errorMessage ?? '';
        assert.match(message, /no capacity for any of the 3 entries/);
        for (const [i, what] of [
          `primary ${a.instanceType} in ${a.zone}`,
          `fallbacks[0] ${b.instanceType} in ${b.zone}`,
          `fallbacks[1] ${c.instanceType} in ${c.zone}`,
        ].entries())
          assert.ok(message.includes(what), `errorMessage names entry ${i}: ${what}: ${message}`);
        assert.equal(await h.liveInstances(failed), 0);
      } finally {
        h.setCapacity(b, true);
        h.setCapacity(c, true);
      }
    });

    it('falls back from spot to on-demand, without the interruptible label', async function () {
      const spot = h.spot;
      if (!spot) return this.skip();
      const onDemand: CapacityChoice = { ...spot, market: 'on-demand' };
      h.setCapacity(spot, false);
      try {
        await create('spot-refused', [spot, onDemand]);
        const running = await h.bed.waitForPhase('spot-refused', 'Running');
        assert.deepEqual(entryOf(running), { index: 1, ...onDemand });
        assert.equal(running.metadata.labels?.[MachineInterruptibleInstanceLabel], undefined);
        assert.equal(running.spec?.metadata?.labels?.[MachineInterruptibleInstanceLabel], undefined);
      } finally {
        h.setCapacity(spot, true);
      }
    });
  });
}
