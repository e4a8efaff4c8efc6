// Shared fixtures for the IBM Cloud client and emulator tests: an emulator on a FakeClock, a client wired to
// it through real IAM, and a worker InstancePrototype resolved from the default world.
import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { startIbmVpcEmulator, type IbmVpcEmulator, type IbmVpcEmulatorOptions } from '../../../sim/ibmcloud/index.js';
import { createVpcClient, type VpcApi, type VpcClientOptions } from '../../../providers/ibmcloud/vpc-api.js';
import { VpcApiError } from '../../../providers/ibmcloud/vpc-api-error.js';
import type { InstancePrototype } from '../../../providers/ibmcloud/vpc-types.js';
import type { IbmEndpoints } from '../../../providers/ibmcloud/ibm-clients.js';

export const START = Date.UTC(2026, 10, 22, 6, 0, 0);

export async function startEmulator(
  opts: IbmVpcEmulatorOptions = {},
): Promise<{ emu: IbmVpcEmulator; clock: FakeClock }> {
  const clock = (opts.clock as FakeClock | undefined) ?? new FakeClock(START);
  const emu = await startIbmVpcEmulator({
    clock,
    timings: { provisionMs: 100, bootMs: 400, deleteMs: 300, stopMs: 200 },
    ...opts,
  });
  return { emu, clock };
}

/** The emulator's endpoints, as the provider's options name them. */
export function emulatorEndpoints(emu: IbmVpcEmulator): IbmEndpoints {
  return {
    vpc: emu.endpoint,
    iam: emu.iamEndpoint,
    resourceManager: emu.resourceManagerEndpoint,
    globalTagging: emu.globalTaggingEndpoint,
  };
}

/** A client that authenticates through the emulator's IAM with its API key. */
export function clientFor(emu: IbmVpcEmulator, extra: Partial<VpcClientOptions> = {}): VpcApi {
  return createVpcClient({
    serviceUrl: emu.endpoint,
    apiKey: emu.apiKey,
    iamUrl: emu.iamEndpoint,
    resourceManagerUrl: emu.resourceManagerEndpoint,
    globalTaggingUrl: emu.globalTaggingEndpoint,
    timeoutMs: 5_000,
    ...extra,
  });
}

/** A worker prototype in the first zone, built from the default world's installer-named resources. */
export function workerPrototype(
  emu: IbmVpcEmulator,
  name: string,
  overrides: Partial<InstancePrototype> = {},
): InstancePrototype {
  const w = emu.world;
  const infra = w.clusterId;
  const zone = w.zones[0] as string;
  const find = <T extends { name: string }>(items: T[], n: string): T => {
    const it = items.find((x) => x.name === n);
    if (!it) throw new Error(`fixture: no ${n}`);
    return it;
  };
  const rg = find(w.resourceGroups, infra);
  const vpc = find(w.vpcs, `${infra}-vpc`);
  return {
    name,
    image: { id: find(w.images, `${infra}-rhcos`).id },
    profile: { name: 'bx2-4x16' },
    zone: { name: zone },
    resource_group: { id: rg.id },
    vpc: { id: vpc.id },
    primary_network_interface: {
      subnet: { id: find(w.subnets, `${infra}-subnet-compute-${zone}`).id },
      security_groups: [
        { id: find(w.securityGroups, `${infra}-sg-cluster-wide`).id },
        { id: find(w.securityGroups, `${infra}-sg-openshift-net`).id },
      ],
    },
    user_data: '{"ignition":{"version":"3.2.0"}}',
    ...overrides,
  };
}

/** Awaits a rejection and checks it is a VpcApiError with the given status (and code). */
export async function apiError(p: Promise<unknown>, status: number, code?: string): Promise<VpcApiError> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  expect(caught, 'expected the call to fail').to.be.instanceOf(VpcApiError);
  const e = caught as VpcApiError;
  expect(e.status, e.message).to.equal(status);
  if (code !== undefined) expect(e.code, e.message).to.equal(code);
  return e;
}

/** Polls until check() passes or the bounded wait runs out (for real-server outcomes, never for timers). */
export async function eventually(check: () => void | Promise<void>, timeoutMs = 3_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

/** A token straight from the emulator's IAM endpoint, for raw HTTP tests. */
export async function rawToken(iamEndpoint: string, apiKey: string): Promise<string> {
  const res = await fetch(`${iamEndpoint}/identity/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ grant_type: 'urn:ibm:params:oauth:grant-type:apikey', apikey: apiKey }).toString(),
  });
  if (res.status !== 200) throw new Error(`token request failed with ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
