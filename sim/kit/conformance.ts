// The actuator conformance suite: the behaviour the machine controller relies on, run by each provider
// against its actuator and its cloud emulator, e.g.
//   describeActuatorConformance('aws', async () => ({ actuator, namespace, validMachine, ... }));
// It calls the actuator directly (no controller), so a failure points at the actuator.
import assert from 'node:assert/strict';
import {
  MachineAZLabel,
  MachineInstanceStateAnnotation,
  MachineInstanceTypeLabel,
  MachineRegionLabel,
} from '../../lib/apis/constants.js';
import type { KubeObject } from '../../lib/apis/meta.js';
import type { Machine } from '../../lib/apis/machine-types.js';
import type { EventRecorder, EventType } from '../../lib/client/event-recorder.js';
import type { KubeClient } from '../../lib/client/kube-client.js';
import type { Actuator, ActuatorContext } from '../../lib/machine/actuator.js';
import { findError, InvalidMachineConfigurationError, isInvalidMachineConfiguration } from '../../lib/apis/errors.js';
import type { Logger } from '../../lib/base/logger.js';
import { bddGlobals } from './bdd-globals.js';

export interface ActuatorConformanceHarness {
  actuator: Actuator;
  /** The API client the actuator reads secrets with, if any; the suite itself never writes through it. */
  client?: KubeClient;
  namespace: string;
  /** A machine the actuator can create, with a unique metadata.uid; the harness may also create it in an API server. */
  validMachine(name: string): Machine | Promise<Machine>;
  /** A machine whose providerSpec can never work, and the field path the error must name. */
  invalidMachine(): { machine: Machine; field: string } | Promise<{ machine: Machine; field: string }>;
  /** Instances in the cloud (not terminated) that belong to this machine. */
  countInstancesFor(machine: Machine): number | Promise<number>;
  /** The next create takes effect in the cloud but its reply never reaches the actuator. */
  loseNextReply(action: 'create'): void | Promise<void>;
  /** While on, every cloud call is answered with the cloud's own throttling error. */
  throttle(on: boolean): void | Promise<void>;
  cleanup(): void | Promise<void>;
  /** Bound for "eventually" checks (boot delay, eventual consistency); default 10 s. */
  eventuallyTimeoutMs?: number;
  /** Pause between polls; default 25 ms. */
  pollIntervalMs?: number;
  /** Called between polls, e.g. to step an emulator's fake clock past a boot or termination delay. */
  advance?(): void | Promise<void>;
}

export interface RecordedEvent {
  object: string;
  type: EventType;
  reason: string;
  action: string;
  message: string;
}

/** An EventRecorder that keeps what it is told (for actuator tests). */
export class RecordingEventRecorder implements EventRecorder {
  readonly events: RecordedEvent[] = [];
  event(object: KubeObject, type: EventType, reason: string, action: string, message: string): void {
    this.events.push({
      object: `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`,
      type,
      reason,
      action,
      message,
    });
  }
}

const silentLogger: Logger = {
  error: () => {},
  warn: () => {},
  info: () => {},
  debug: () => {},
  child: () => silentLogger,
};

export function conformanceContext(signal: AbortSignal = new AbortController().signal): ActuatorContext {
  return { signal, log: silentLogger, events: new RecordingEventRecorder() };
}

/** Helpers a check gets: a fresh valid machine, an actuator context, and bounded polling. */
export interface ConformanceTools {
  fresh(what: string): Promise<Machine>;
  ctx(): ActuatorContext;
  eventually<T>(what: string, probe: () => Promise<T | undefined>): Promise<T>;
  existsEventually(m: Machine, want: boolean): Promise<true>;
}

export interface ConformanceCheck {
  title: string;
  run(h: ActuatorConformanceHarness, t: ConformanceTools): Promise<void>;
}

let seq = 0;

export function conformanceTools(h: ActuatorConformanceHarness): ConformanceTools {
  const ctx = () => conformanceContext();
  async function eventually<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
    const timeout = h.eventuallyTimeoutMs ?? 10_000;
    const deadline = Date.now() + timeout;
    let lastErr: unknown;
    for (;;) {
      try {
        const v = await probe();
        if (v !== undefined) return v;
      } catch (err) {
        lastErr = err;
      }
      if (Date.now() > deadline) {
        assert.fail(
          `${what}: not within ${timeout} ms${lastErr ? ` (last error: ${(lastErr as Error).message})` : ''}`,
        );
      }
      await h.advance?.();
      await new Promise((r) => setTimeout(r, h.pollIntervalMs ?? 25));
    }
  }
  return {
    ctx,
    eventually,
    fresh: async (what) => h.validMachine(`conformance-${what}-${++seq}`),
    existsEventually: (m, want) =>
      eventually(`exists() to be ${want}`, async () =>
        (await h.actuator.exists(m, ctx())) === want ? (true as const) : undefined,
      ),
  };
}

/** Every check of the suite, usable on its own (e.g. to show that a broken actuator fails it). */
export const actuatorConformanceChecks: ConformanceCheck[] = [
  {
    title: 'creates an instance that then exists, and update writes providerID and addresses on the machine',
    async run(h, t) {
      const m = await t.fresh('create');
      await h.actuator.create(m, t.ctx());
      await t.existsEventually(m, true);
      await t.eventually('update() to write spec.providerID and status.addresses', async () => {
        await h.actuator.update(m, t.ctx());
        return m.spec?.providerID && (m.status?.addresses?.length ?? 0) > 0 ? true : undefined;
      });
      assert.match(m.spec?.providerID ?? '', /^[a-z0-9]+:\/\//, 'providerID must be <scheme>://...');
      assert.equal(await h.countInstancesFor(m), 1);
    },
  },
  {
    title: 'creating twice leaves exactly one instance',
    async run(h, t) {
      const m = await t.fresh('twice');
      await h.actuator.create(m, t.ctx());
      await h.actuator.create(structuredClone(m), t.ctx());
      assert.equal(await h.countInstancesFor(m), 1);
    },
  },
  {
    title: 'a create whose reply is lost, retried, leaves exactly one instance',
    async run(h, t) {
      const m = await t.fresh('lost');
      await h.loseNextReply('create');
      try {
        await h.actuator.create(m, t.ctx());
      } catch {
        // The reply was lost: the controller retries with the same machine.
      }
      await t.eventually('the retried create to succeed', async () => {
        await h.actuator.create(m, t.ctx());
        return true;
      });
      assert.equal(await h.countInstancesFor(m), 1);
    },
  },
  {
    title:
      'update is idempotent and writes the region, zone and instance-type labels and the instance-state annotation',
    async run(h, t) {
      const m = await t.fresh('update');
      await h.actuator.create(m, t.ctx());
      await t.existsEventually(m, true);
      await t.eventually('update() to record the instance', async () => {
        await h.actuator.update(m, t.ctx());
        return m.spec?.providerID ? true : undefined;
      });
      const snapshot = (x: Machine) => ({
        providerID: x.spec?.providerID,
        addresses: x.status?.addresses,
        labels: x.metadata.labels,
        annotations: x.metadata.annotations,
      });
      // The instance may still be booting: its state may move between two updates. Once it holds still, a
      // second update must change nothing the first wrote; an actuator that changes something every time never
      // gets there.
      await t.eventually('a second update to change nothing the first wrote', async () => {
        await h.actuator.update(m, t.ctx());
        const first = snapshot(structuredClone(m));
        await h.actuator.update(m, t.ctx());
        try {
          assert.deepEqual(snapshot(m), first);
          return true;
        } catch {
          return undefined;
        }
      });
      for (const label of [MachineRegionLabel, MachineAZLabel, MachineInstanceTypeLabel]) {
        assert.ok(m.metadata.labels?.[label], `label ${label} must be set`);
      }
      assert.ok(
        m.metadata.annotations?.[MachineInstanceStateAnnotation],
        `annotation ${MachineInstanceStateAnnotation} must be set`,
      );
      assert.equal(await h.countInstancesFor(m), 1);
    },
  },
  {
    title: 'delete makes the instance eventually not exist',
    async run(h, t) {
      const m = await t.fresh('delete');
      await h.actuator.create(m, t.ctx());
      await t.existsEventually(m, true);
      await h.actuator.update(m, t.ctx());
      await h.actuator.delete(m, t.ctx());
      await t.existsEventually(m, false);
      assert.equal(await h.countInstancesFor(m), 0);
    },
  },
  {
    title: 'deleting twice succeeds',
    async run(h, t) {
      const m = await t.fresh('delete-twice');
      await h.actuator.create(m, t.ctx());
      await t.existsEventually(m, true);
      await h.actuator.delete(m, t.ctx());
      await h.actuator.delete(m, t.ctx());
      await t.existsEventually(m, false);
      await h.actuator.delete(m, t.ctx());
    },
  },
  {
    title: 'deleting a machine that was never created succeeds and it does not exist',
    async run(h, t) {
      const m = await t.fresh('never');
      await h.actuator.delete(m, t.ctx());
      assert.equal(await h.actuator.exists(m, t.ctx()), false);
    },
  },
  {
    title:
      'an invalid providerSpec is rejected with InvalidMachineConfigurationError naming the field, and nothing is created',
    async run(h, t) {
      const { machine, field } = await h.invalidMachine();
      const err = await h.actuator.create(machine, t.ctx()).then(
        () => assert.fail('create of an invalid machine must reject'),
        (e: unknown) => e,
      );
      assert.ok(isInvalidMachineConfiguration(err), `expected InvalidConfiguration, got ${String(err)}`);
      const typed = findError(err, InvalidMachineConfigurationError);
      const named = typed?.field === field || (err instanceof Error && err.message.includes(field));
      assert.ok(named, `the error must name ${field}: ${(err as Error).message}`);
      assert.equal(await h.countInstancesFor(machine), 0);
    },
  },
  {
    title: 'throttling gives a retryable error, never InvalidConfiguration, and the retry succeeds',
    async run(h, t) {
      const m = await t.fresh('throttle');
      await h.throttle(true);
      const err = await h.actuator.create(m, t.ctx()).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (err !== undefined) {
        assert.ok(
          !isInvalidMachineConfiguration(err),
          `throttling must not be terminal: ${err instanceof Error ? err.message : JSON.stringify(err)}`,
        );
      }
      await h.throttle(false);
      await t.eventually('create to succeed once throttling stops', async () => {
        await h.actuator.create(m, t.ctx());
        return true;
      });
      await t.existsEventually(m, true);
      assert.equal(await h.countInstancesFor(m), 1);
    },
  },
  {
    title: 'exists() under throttling never reports an existing instance as gone',
    async run(h, t) {
      const m = await t.fresh('throttle-exists');
      await h.actuator.create(m, t.ctx());
      await t.existsEventually(m, true);
      await h.actuator.update(m, t.ctx());
      await h.throttle(true);
      const answer = await h.actuator.exists(m, t.ctx()).then(
        (v) => v,
        (e: unknown) => e,
      );
      assert.notEqual(
        answer,
        false,
        'a throttled exists() must fail or say true, never false (that would mark the machine Failed)',
      );
      if (answer instanceof Error) assert.ok(!isInvalidMachineConfiguration(answer));
    },
  },
];

export function describeActuatorConformance(name: string, setup: () => Promise<ActuatorConformanceHarness>): void {
  const { describe, it, before, after, afterEach } = bddGlobals('describeActuatorConformance');
  describe(`${name} actuator conformance`, () => {
    let h: ActuatorConformanceHarness | undefined;
    before(async () => {
      h = await setup();
    });
    after(async () => {
      await h?.cleanup();
    });
    afterEach(async () => {
      await h?.throttle(false);
    });
    for (const check of actuatorConformanceChecks) {
      it(check.title, async () => {
        if (!h) throw new Error('conformance harness setup failed');
        await check.run(h, conformanceTools(h));
      });
    }
  });
}
