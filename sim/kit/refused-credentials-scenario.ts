// The end-to-end story of a credentials Secret the cloud refuses (a wrong or revoked key), run by each provider
// on the local control plane with its real SDK against its emulator, which checks credentials as its cloud
// does. The same harness as the missing-Secret story, plus credentials the emulator does not accept:
//   describeRefusedCredentialsSecret('aws', async () => ({ ...missingSecretHarness, refusedCredentialsSecret, refusalCode }));
import assert from 'node:assert/strict';
import type { Secret } from '../../lib/apis/core.js';
import type { Machine } from '../../lib/apis/machine-types.js';
import { Machines, Secrets } from '../../lib/client/resources.js';
import { harnessSuite, warningsOn } from './harness-suite.js';
import type { MissingSecretHarness } from './missing-secret-scenario.js';
import { eventually } from './provider-test-bed.js';

export interface RefusedCredentialsHarness extends MissingSecretHarness {
  /** Credentials under this name, in the bed's namespace, that the cloud refuses (not created yet). */
  refusedCredentialsSecret(name: string): Secret;
  /** What the cloud's own refusal says, as the event quotes it ("AuthFailure", "BXNIM0415E"...). */
  refusalCode: string;
}

/** How long a Machine may take to go on once its Secret is fixed: the fix triggers a reconcile at once. */
const RECOVERY_MS = 30_000;

/** Registers the refused-credentials story as a mocha suite for `cloud`; `setup` builds its harness. */
export function describeRefusedCredentialsSecret(cloud: string, setup: () => Promise<RefusedCredentialsHarness>): void {
  const title = `${cloud}: a credentials Secret the cloud refuses`;
  harnessSuite('describeRefusedCredentialsSecret', title, setup, (harness, { it }) => {
    const client = () => harness().bed.env.client;
    const namespace = () => harness().namespace;
    const machine = (name: string) => client().get(Machines, { namespace: namespace(), name });
    let seen = '';
    const warning = async (name: string, reason: string, mentioning: string[]) => {
      const w = await warningsOn(client(), namespace(), name);
      seen = w.seen;
      return w.find(reason, mentioning);
    };
    /** Replaces the Secret's data with that of `from` (what `kubectl apply` of a fixed Secret does). */
    const replaceSecret = async (name: string, from: Secret) => {
      const current = await client().get(Secrets, { namespace: namespace(), name });
      await client().update(Secrets, { ...current, data: from.data, stringData: from.stringData });
    };

    let running: Machine;
    it("a new Machine gets the cloud's refusal in a FailedCreate Warning naming the Secret, and no instance", async () => {
      await client().create(Secrets, harness().refusedCredentialsSecret('wrong-credentials'));
      await client().create(Machines, harness().machineNaming('refused-1', 'wrong-credentials'));
      const secretKey = `${namespace()}/wrong-credentials`;
      const ev = await eventually(
        'a FailedCreate Warning naming the Secret and quoting the cloud',
        () => warning('refused-1', 'FailedCreate', [secretKey, harness().refusalCode]),
        { describe: () => `events: ${seen}` },
      );
      assert.match(ev.message ?? '', /refused the credentials in Secret/);
      const m = await machine('refused-1');
      assert.equal(await harness().liveInstances(m), 0);
      assert.equal(m.spec?.providerID, undefined);
      assert.notEqual(m.status?.phase, 'Failed', 'a refused key is retried, never terminal');
    });

    it('launches on the reconcile the fixed Secret triggers', async () => {
      await replaceSecret('wrong-credentials', harness().credentialsSecret('wrong-credentials'));
      running = await eventually(
        'refused-1 provisioned',
        async () => {
          const x = await machine('refused-1');
          return x.spec?.providerID ? x : undefined;
        },
        RECOVERY_MS,
      );
      assert.equal(await harness().liveInstances(running), 1);
    });

    it('a Machine deleted after its key was revoked keeps its instance and finalizer, says why naming the Secret, and goes once it is fixed', async () => {
      running = await harness().bed.waitForPhase('refused-1', 'Running');
      await replaceSecret('wrong-credentials', harness().refusedCredentialsSecret('wrong-credentials'));
      await client().delete(Machines, { namespace: namespace(), name: 'refused-1' });
      const secretKey = `${namespace()}/wrong-credentials`;
      await eventually(
        'a FailedDelete Warning naming the Secret',
        () => warning('refused-1', 'FailedDelete', [secretKey, harness().refusalCode]),
        { describe: () => `events: ${seen}` },
      );
      const m = await machine('refused-1');
      assert.ok(m.metadata.finalizers?.includes('machine.machine.openshift.io'), 'finalizer kept');
      assert.equal(await harness().liveInstances(running), 1, 'nothing is terminated with refused credentials');
      await replaceSecret('wrong-credentials', harness().credentialsSecret('wrong-credentials'));
      await eventually(
        'refused-1 gone',
        async () => (await harness().bed.getMachine('refused-1')) === undefined,
        RECOVERY_MS,
      );
      assert.equal(await harness().liveInstances(running), 0);
    });
  });
}
