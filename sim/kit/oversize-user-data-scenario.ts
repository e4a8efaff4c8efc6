// The end-to-end story of user data larger than the cloud takes, run by each provider on the local control plane
// with its real SDK against its emulator, e.g.
//   describeOversizeUserData('aws', async (logger) => ({ bed, namespace, limitBytes, machineNaming, launchCalls, ... }));
// A 900 KB user-data Secret is a refusal that will never change: the Machine must end Failed with
// InvalidConfiguration naming the Secret, its key and the cloud's limit, without one launch call reaching the
// cloud and without the Secret's content in any event or log line. User data exactly at the limit still launches.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../lib/base/structured-logger.js';
import type { Logger } from '../../lib/base/logger.js';
import type { Machine } from '../../lib/apis/machine-types.js';
import { Events, Machines, Secrets } from '../../lib/client/resources.js';
import { eventually, type ProviderTestBed, type WiredProvider } from './provider-test-bed.js';
import { bddGlobals } from './bdd-globals.js';

export interface OversizeUserDataHarness {
  bed: ProviderTestBed<WiredProvider>;
  /** The bed's namespace: where the Machines and the Secrets live. */
  namespace: string;
  /** The cloud's limit on the user data, in bytes, as its InvalidConfiguration message quotes it. */
  limitBytes: number;
  /** A Machine (not created yet) whose providerSpec names `userDataSecret` and otherwise works. */
  machineNaming(name: string, userDataSecret: string): Machine;
  /** Launch calls that reached the emulator (refused ones included, and bodies refused for their size). */
  launchCalls(): number;
  /** Instances in the cloud, not terminated nor terminating, that belong to this Machine. */
  liveInstances(machine: Machine): number | Promise<number>;
  cleanup(): Promise<void>;
}

/** The JSON log lines the binaries would print (every level), kept in memory for the scenario to search. */
export class CapturedLog {
  private readonly chunks: string[] = [];
  readonly logger: Logger = createLogger({
    level: 10,
    stream: new Writable({
      write: (chunk: Buffer | string, _enc, done) => {
        this.chunks.push(chunk.toString());
        done();
      },
    }),
  });
  text(): string {
    return this.chunks.join('');
  }
}

const KB = 1024;

/** User data of `bytes` bytes made of one marker repeated: any piece of it that leaks contains the marker. */
function userDataOf(marker: string, bytes: number): string {
  return marker.repeat(Math.ceil(bytes / marker.length)).slice(0, bytes);
}

export function describeOversizeUserData(
  cloud: string,
  /** Starts the bed with `logger` as its manager's logger (every controller's and the actuator's). */
  setup: (logger: Logger) => Promise<OversizeUserDataHarness>,
): void {
  const { describe, it, before, after } = bddGlobals('describeOversizeUserData');
  describe(`${cloud}: user data larger than the cloud takes`, () => {
    const log = new CapturedLog();
    const marker = `user-data-must-not-leak-${cloud}-`;
    let h: OversizeUserDataHarness;
    before(async () => {
      h = await setup(log.logger);
    });
    after(async () => {
      await h?.cleanup();
    });

    const client = () => h.bed.env.client;
    const createUserData = (name: string, bytes: number) =>
      client().create(Secrets, {
        metadata: { namespace: h.namespace, name },
        data: { userData: Buffer.from(userDataOf(marker, bytes)).toString('base64') },
      });

    it('a 900 KB Secret fails the Machine with InvalidConfiguration naming the Secret, its key and the limit, and launches nothing', async () => {
      await createUserData('huge-user-data', 900 * KB);
      const created = await client().create(Machines, h.machineNaming('huge-1', 'huge-user-data'));
      const failed = await h.bed.waitForPhase('huge-1', 'Failed');
      assert.equal(failed.status?.errorReason, 'InvalidConfiguration');
      const message = failed.status?.errorMessage ?? '';
      assert.ok(message.includes(`Secret ${h.namespace}/huge-user-data`), message);
      assert.ok(message.includes('"userData"'), message);
      assert.ok(message.includes(`${900 * KB} bytes`), message);
      assert.ok(message.includes(`limit of ${h.limitBytes} bytes`), message);
      assert.equal(h.launchCalls(), 0, 'no launch call may reach the cloud');
      assert.equal(await h.liveInstances(created), 0);
      await eventually('a FailedCreate Warning naming the Secret', async () => {
        const events = (await client().list(Events, { namespace: h.namespace })).items;
        return events.some(
          (e) =>
            e.involvedObject.name === 'huge-1' &&
            e.type === 'Warning' &&
            e.reason === 'FailedCreate' &&
            (e.message ?? '').includes(`${h.namespace}/huge-user-data`),
        );
      });
    });

    it('never puts the Secret content into an event, a condition or a log line', async () => {
      const events = (await client().list(Events, { namespace: h.namespace })).items;
      for (const e of events) assert.ok(!(e.message ?? '').includes(marker), `event ${e.reason}: ${e.message}`);
      const m = await client().get(Machines, { namespace: h.namespace, name: 'huge-1' });
      assert.ok(!JSON.stringify(m.status).includes(marker), 'Machine status');
      assert.ok(log.text().length > 0, 'the controllers logged nothing: the logger is not wired');
      assert.ok(!log.text().includes(marker), 'a log line carries the user data');
    });

    it('user data of exactly the limit launches', async () => {
      await createUserData('edge-user-data', h.limitBytes);
      await client().create(Machines, h.machineNaming('edge-1', 'edge-user-data'));
      const m = await eventually('edge-1 provisioned', async () => {
        const x = await client().get(Machines, { namespace: h.namespace, name: 'edge-1' });
        assert.notEqual(x.status?.phase, 'Failed', x.status?.errorMessage);
        return x.spec?.providerID ? x : undefined;
      });
      assert.equal(await h.liveInstances(m), 1);
    });
  });
}
