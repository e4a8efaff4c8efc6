// The end-to-end story of a missing credentials Secret, run by each provider on the local control plane
// with its real SDK against its emulator, e.g.
//   describeMissingCredentialsSecret('aws', async () => ({ bed, namespace, machineNaming, credentialsSecret, liveInstances, cleanup }));
// The bed's machine controller must be wired with WAIT_FOR_SECRET_EVENTS: its fallback look at a missing
// Secret is ten minutes away, so a Machine that moves on within seconds was brought back by the Secret watch.
import assert from 'node:assert/strict';
import { SecretsAvailableCondition } from '../../lib/apis/constants.js';
import type { Secret } from '../../lib/apis/core.js';
import type { Machine } from '../../lib/apis/machine-types.js';
import { Machines, Secrets } from '../../lib/client/resources.js';
import type { MachineControllerOptions } from '../../lib/machine/controller.js';
import { eventually, FAST_MACHINE_CONTROLLER, type ProviderTestBed, type WiredProvider } from './provider-test-bed.js';
import { harnessSuite, warningsOn } from './harness-suite.js';

export const WAIT_FOR_SECRET_EVENTS: MachineControllerOptions = {
  ...FAST_MACHINE_CONTROLLER,
  secretWait: { baseDelayMs: 600_000, maxDelayMs: 600_000 },
};

export interface MissingSecretHarness {
  bed: ProviderTestBed<WiredProvider>;
  /** The bed's namespace: where the Machines and the Secrets live. */
  namespace: string;
  /** A Machine (not created yet) whose providerSpec names `credentialsSecret` and otherwise works. */
  machineNaming(name: string, credentialsSecret: string): Machine;
  /** Working credentials under this name, in the bed's namespace (not created yet). */
  credentialsSecret(name: string): Secret;
  /** Instances in the cloud, not terminated nor terminating, that belong to this Machine. */
  liveInstances(machine: Machine): number | Promise<number>;
  cleanup(): Promise<void>;
}

/**
 * How long a Machine may take to get its instance once its Secret exists (a first client for new credentials
 * included, on a loaded machine): seconds, against a ten-minute fallback.
 */
const RECOVERY_MS = 30_000;

export function describeMissingCredentialsSecret(cloud: string, setup: () => Promise<MissingSecretHarness>): void {
  harnessSuite(
    'describeMissingCredentialsSecret',
    `${cloud}: a missing credentials Secret`,
    setup,
    (harness, { it }) => {
      const client = () => harness().bed.env.client;
      const namespace = () => harness().namespace;
      const machine = (name: string) => client().get(Machines, { namespace: namespace(), name });
      const conditionOf = (m: Machine) => m.status?.conditions?.find((c) => c.type === SecretsAvailableCondition);
      const warning = async (name: string, reason: string, mentioning: string) =>
        (await warningsOn(client(), namespace(), name)).find(reason, [mentioning]);
      const waitingCondition = (name: string, mentioning: string, saying: string) =>
        eventually(`${name}: SecretsAvailable=False naming ${mentioning}`, async () => {
          const m = await machine(name);
          const c = conditionOf(m);
          return c?.status === 'False' &&
            c.reason === 'SecretNotFound' &&
            (c.message ?? '').includes(mentioning) &&
            (c.message ?? '').includes(saying)
            ? m
            : undefined;
        });

      it('a new Machine waits with a condition and a FailedCreate Warning naming the Secret, and launches nothing', async () => {
        await client().create(Machines, harness().machineNaming('late-1', 'late-credentials'));
        const secretKey = `${namespace()}/late-credentials`;
        const m = await waitingCondition('late-1', secretKey, 'the instance is created once it exists');
        await eventually('a FailedCreate Warning naming the Secret', () =>
          warning('late-1', 'FailedCreate', secretKey),
        );
        assert.equal(await harness().liveInstances(m), 0);
        assert.equal(m.spec?.providerID, undefined);
      });

      it('goes on within seconds of the Secret being created, not after its backoff', async () => {
        await client().create(Secrets, harness().credentialsSecret('late-credentials'));
        const m = await eventually(
          'late-1 provisioned',
          async () => {
            const x = await machine('late-1');
            return x.spec?.providerID ? x : undefined;
          },
          RECOVERY_MS,
        );
        assert.equal(await harness().liveInstances(m), 1);
        const after = await eventually('SecretsAvailable=True', async () => {
          const x = await machine('late-1');
          return conditionOf(x)?.status === 'True' ? x : undefined;
        });
        assert.equal(conditionOf(after)?.reason, 'SecretsFound');
      });

      let doomed: Machine;
      it('a deleting Machine whose instance exists keeps its finalizer and its instance, and says why', async () => {
        await client().create(Secrets, harness().credentialsSecret('rotated-credentials'));
        await client().create(Machines, harness().machineNaming('rotated-1', 'rotated-credentials'));
        doomed = await harness().bed.waitForPhase('rotated-1', 'Running');
        await client().delete(Secrets, { namespace: namespace(), name: 'rotated-credentials' });
        await client().delete(Machines, { namespace: namespace(), name: 'rotated-1' });
        const secretKey = `${namespace()}/rotated-credentials`;
        const m = await waitingCondition(
          'rotated-1',
          secretKey,
          'the instance is terminated and the finalizer removed once it exists',
        );
        await eventually('a FailedDelete Warning naming the Secret', () =>
          warning('rotated-1', 'FailedDelete', secretKey),
        );
        assert.ok(m.metadata.deletionTimestamp);
        assert.ok(m.metadata.finalizers?.includes('machine.machine.openshift.io'), 'finalizer kept');
        assert.equal(m.status?.phase, 'Deleting');
        assert.equal(await harness().liveInstances(doomed), 1);
      });

      it('terminates the instance and lets the Machine go within seconds of the Secret being restored', async () => {
        await client().create(Secrets, harness().credentialsSecret('rotated-credentials'));
        await eventually(
          'rotated-1 gone',
          async () => (await harness().bed.getMachine('rotated-1')) === undefined,
          RECOVERY_MS,
        );
        assert.equal(await harness().liveInstances(doomed), 0);
      });
    },
  );
}
