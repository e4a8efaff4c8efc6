// The end-to-end story of a create the cloud refuses for want of capacity, run by each provider on the local
// control plane with its real SDK against its emulator, e.g.
//   describeCapacityRefusal('aws', async () => ({ bed, namespace, exhaustedMachine, setCapacity, liveInstances, cleanup, ... }));
// The bed's machine controller must be wired with SHORT_CAPACITY_WINDOW, so that the window ends in seconds.
import assert from 'node:assert/strict';
import { CapacityAvailableCondition } from '../../lib/apis/constants.js';
import type { Machine } from '../../lib/apis/machine-types.js';
import { Events, Machines } from '../../lib/client/resources.js';
import type { MachineControllerOptions } from '../../lib/machine/controller.js';
import { eventually, FAST_MACHINE_CONTROLLER, type ProviderTestBed, type WiredProvider } from './provider-test-bed.js';
import { bddGlobals } from './bdd-globals.js';

/** Long enough for a test to give the capacity back inside it on a loaded machine, short enough to wait out. */
export const SHORT_CAPACITY_WINDOW_MS = 8_000;
export const SHORT_CAPACITY_WINDOW: MachineControllerOptions = {
  ...FAST_MACHINE_CONTROLLER,
  capacityRetryWindowMs: SHORT_CAPACITY_WINDOW_MS,
  capacityRetry: { baseDelayMs: 200, maxDelayMs: 1_000 },
};

export interface CapacityRefusalHarness {
  bed: ProviderTestBed<WiredProvider>;
  namespace: string;
  /** A Machine (not created yet) of a type the emulated cloud has no capacity for, in one zone. */
  exhaustedMachine(name: string): Machine;
  /** The zone and type exhaustedMachine asks for, and the code the cloud refuses them with. */
  zone: string;
  instanceType: string;
  cloudCode: string;
  /** Gives the capacity for that type in that zone back (true) or takes it away (false). */
  setCapacity(available: boolean): void;
  /** Instances in the cloud, not terminated nor terminating, that belong to this Machine. */
  liveInstances(machine: Machine): number | Promise<number>;
  cleanup(): Promise<void>;
}

export function describeCapacityRefusal(cloud: string, setup: () => Promise<CapacityRefusalHarness>): void {
  const { describe, it, before, after } = bddGlobals('describeCapacityRefusal');
  describe(`${cloud}: the cloud has no capacity for the Machine`, () => {
    let h: CapacityRefusalHarness;
    before(async () => {
      h = await setup();
    });
    after(async () => {
      await h?.cleanup();
    });

    const client = () => h.bed.env.client;
    const machine = (name: string) => client().get(Machines, { namespace: h.namespace, name });
    const refused = (name: string) =>
      eventually(`${name}: CapacityAvailable=False`, async () => {
        const m = await machine(name);
        const c = m.status?.conditions?.find((x) => x.type === CapacityAvailableCondition);
        return c?.status === 'False' ? m : undefined;
      });

    it('retries within the window, then fails the Machine: InsufficientResources quoting the code, zone and type, and a Warning', async () => {
      const started = Date.now();
      await client().create(Machines, h.exhaustedMachine('no-capacity-1'));
      const waiting = await refused('no-capacity-1');
      assert.equal(waiting.status?.phase, 'Provisioning');
      const failed = await h.bed.waitForPhase('no-capacity-1', 'Failed');
      assert.ok(Date.now() - started >= SHORT_CAPACITY_WINDOW_MS - 1_000, 'not before the window is over');
      assert.equal(failed.status?.errorReason, 'InsufficientResources');
      const message = failed.status?.errorMessage ?? '';
      for (const part of [h.cloudCode, h.zone, h.instanceType])
        assert.ok(message.includes(part), `errorMessage ${JSON.stringify(message)} names ${part}`);
      // The event follows the status write that made the Machine Failed: it may land a moment later.
      await eventually('the InsufficientResources Warning event', async () => {
        const events = (await client().list(Events, { namespace: h.namespace })).items;
        return events.some(
          (e) =>
            e.involvedObject.name === 'no-capacity-1' && e.type === 'Warning' && e.reason === 'InsufficientResources',
        )
          ? true
          : undefined;
      });
      assert.equal(await h.liveInstances(failed), 0);
    });

    it('capacity coming back before the window ends lets the Machine run', async () => {
      await client().create(Machines, h.exhaustedMachine('no-capacity-2'));
      await refused('no-capacity-2');
      h.setCapacity(true);
      try {
        const running = await h.bed.waitForPhase('no-capacity-2', 'Running');
        assert.equal(running.status?.errorReason, undefined);
        assert.equal(running.status?.conditions?.find((x) => x.type === CapacityAvailableCondition)?.status, 'True');
        assert.equal(await h.liveInstances(running), 1);
      } finally {
        h.setCapacity(false);
      }
    });
  });
}
