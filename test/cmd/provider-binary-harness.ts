// Runs a machine-api-provider-<cloud> binary as a deployment would (on top of binary-harness.ts): a local
// control plane with a kubeconfig file, the Machine namespace and its secrets, the binary started with
// leader election and a health port, and SIGTERM at the end.
//
// How a provider's binary test uses it:
//   before: cluster = await startBinaryCluster({ namespace: NAMESPACE, secrets: defaultSecrets() });  emu = await start...Emulator();
//   const run = await runProviderBinary('machine-api-provider-ibmcloud', cluster, ['--ibm-endpoint', emu.endpoint], async (health) => {
//     expect(health).to.equal('ok');
//     await cluster.env.client.create(Machines, machineFor({ ... }));
//     expect((await machineWithProviderID(cluster, 'bin-1')).spec?.providerID).to.match(...);
//     expect(await leaseHolder(cluster, LEADER_ELECTION_ID)).to.be.a('string');
//   });
//   expect(run.exitCode, run.output).to.equal(0);
//   after: await emu?.stop(); await cluster?.stop();
// and flagError(buildProgram({}), ['--ibm-endpoint', 'nope']) for the message a bad flag prints.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { Leases, Machines, Namespaces, Secrets, type Machine, type Secret } from '../../lib/index.js';
import { eventually, startTestEnv, type TestEnv } from '../../sim/kit/index.js';
import { freePort, startBinary, waitForOk } from './binary-harness.js';

export interface BinaryCluster {
  env: TestEnv;
  /** The kubeconfig file a child binary is pointed at. */
  kubeconfig: string;
  /** The namespace created for the Machines (the binary's lease lives there too). */
  namespace: string;
  stop(): Promise<void>;
}

/** A local control plane that writes a kubeconfig file, with `namespace` and `secrets` created. */
export async function startBinaryCluster(opts: { namespace: string; secrets?: Secret[] }): Promise<BinaryCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'mapb-'));
  const kubeconfig = join(dir, 'kubeconfig');
  let env: TestEnv | undefined;
  try {
    env = await startTestEnv({ controlPlane: { kubeconfigPath: kubeconfig } });
    await env.client.create(Namespaces, { metadata: { name: opts.namespace } });
    for (const s of opts.secrets ?? []) await env.client.create(Secrets, s);
  } catch (err) {
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const started = env;
  return {
    env: started,
    kubeconfig,
    namespace: opts.namespace,
    stop: async () => {
      await started.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface BinaryRun {
  /** The exit code after SIGTERM. */
  exitCode: number | null;
  /** Everything the child wrote, for assertion messages. */
  output: string;
}

/**
 * Starts the binary against the cluster (leader election in its namespace with a 10s lease, a free health
 * port, metrics off, plus `args`), waits for /healthz to answer 200 and runs `body` with that answer; then
 * sends SIGTERM, whatever happened, and resolves once the child exited. `env` adds to the child's environment.
 */
export async function runProviderBinary(
  name: string,
  cluster: BinaryCluster,
  args: string[],
  body: (healthz: string) => Promise<void>,
  env: NodeJS.ProcessEnv = {},
): Promise<BinaryRun> {
  const health = await freePort();
  const child = startBinary(
    name,
    [
      '--kubeconfig',
      cluster.kubeconfig,
      ...args,
      '--leader-elect',
      '--leader-elect-resource-namespace',
      cluster.namespace,
      '--leader-elect-lease-duration',
      '10s',
      '--health-addr',
      `127.0.0.1:${health}`,
      '--metrics-bind-address',
      '0',
    ],
    env,
  );
  try {
    await body(await waitForOk(`http://127.0.0.1:${health}/healthz`, child));
  } finally {
    child.process.kill('SIGTERM');
  }
  return { exitCode: await child.exited, output: child.output() };
}

/** Waits (up to 40 s: the child is still starting its informers) until the Machine has a providerID. */
export function machineWithProviderID(cluster: BinaryCluster, name: string): Promise<Machine> {
  return eventually(
    `${name} to get a providerID`,
    async () => {
      const m = await cluster.env.client.get(Machines, { namespace: cluster.namespace, name });
      return m.spec?.providerID ? m : undefined;
    },
    40_000,
  );
}

/** The holder of the binary's leader-election Lease in the cluster's namespace. */
export async function leaseHolder(cluster: BinaryCluster, leaseName: string): Promise<string | undefined> {
  return (await cluster.env.client.get(Leases, { namespace: cluster.namespace, name: leaseName })).spec?.holderIdentity;
}

/** What commander prints when `args` fail to parse (the parse must throw, else this throws). */
export function flagError(program: Command, args: readonly string[]): string {
  let out = '';
  program.exitOverride().configureOutput({ writeErr: (s) => (out += s), writeOut: () => {} });
  try {
    program.parse(['node', 'x', ...args]);
  } catch {
    return out;
  }
  throw new Error(`${args.join(' ')} parsed without an error`);
}
