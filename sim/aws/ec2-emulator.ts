// A local EC2 (plus classic ELB and ELBv2) endpoint speaking the real Query protocol, so @aws-sdk clients and
// the aws CLI run against it unmodified with only their endpoint changed. Listens on loopback only.
import { createServer, type Server } from 'node:http';
import {
  credentialsAdminRoutes,
  DEFAULT_EMULATOR_MAX_BODY_BYTES,
  emulatorStopper,
  InstanceMetadataListeners,
  knobsFromOptions,
  listenOnLoopback,
  loadRegionalSnapshot,
  persistWorld,
  type CloudEmulatorHandle,
  type CloudEmulatorOptions,
  type OutOfBandLifecycle,
  type StateSnapshotFile,
  capacityAdminRoutes,
  type CapacityMarket,
} from '../kit/index.js';
import { AccessKeyStore, EMULATOR_ACCESS_KEY, type AccessKey } from './access-keys.js';
import { assignPublicAddress } from './actions/run-instances.js';
import { defaultWorld } from './default-world.js';
import { DEFAULT_TIMINGS, Ec2State, type InstanceTimings } from './ec2-state.js';
import { ImdsTokens, imdsHandler } from './instance-metadata.js';
import { instanceViewOf } from './instance-view.js';
import type { Ec2Instance, Ec2World } from './model.js';
import type { SessionCredentials } from './session-credentials.js';
import { createRequestHandler } from './request-handler.js';
import { classifyAction, serverFaultFor, throttleFaultFor } from './wire.js';

export interface Ec2EmulatorOptions extends CloudEmulatorOptions<Ec2World, InstanceTimings> {
  /** Default "us-east-1". One emulator serves one region (DescribeRegions still lists them all). */
  region?: string;
  /** Infrastructure name used by the default world's resource names and cluster tags. Default "test-cluster". */
  clusterId?: string;
  accountId?: string;
  /** DescribeInstanceTypes page size when the caller sends no MaxResults. Default 100, as on AWS. */
  instanceTypesPageSize?: number;
  /**
   * The account's access keys: every EC2 and ELB call must be SigV4-signed by one of them (or by live STS session
   * credentials). Default [EMULATOR_ACCESS_KEY], the key of the sample credentials Secret. Keys can be added
   * and revoked while it runs (addAccessKey, revokeAccessKey, or the admin endpoint's /credentials).
   */
  accessKeys?: readonly AccessKey[];
  /**
   * Lifetime of STS session credentials when the caller asks for none (default 3600 s, as AWS). Tests may go
   * below AWS's 900 s minimum, e.g. inside the SDK's 5-minute refresh window.
   */
  stsSessionSeconds?: number;
}

/**
 * The world holds seed resources, instances, hosts and load balancers; instances() returns every instance,
 * terminated ones included until they expire; terminateOutOfBand terminates as if done in the console.
 */
export interface Ec2Emulator
  extends CloudEmulatorHandle<Ec2World, Ec2Instance, InstanceTimings>, OutOfBandLifecycle<[id: string]> {
  /** "http://127.0.0.1:<port>", for the SDK's `endpoint` or the CLI's `--endpoint-url`. */
  readonly endpoint: string;
  readonly region: string;
  instance(id: string): Ec2Instance | undefined;
  /** The OS shuts itself down: the instance stops, or terminates if launched with InstanceInitiatedShutdownBehavior=terminate. */
  shutdownFromInside(id: string): void;
  /**
   * Interrupts a spot instance as EC2 does: the notice appears in the instance's metadata (spot/instance-action,
   * and spot/termination-time when it will terminate) at once, and after timings.spotNoticeMs (two minutes by
   * default; 0 = at once) the instance is terminated (or stopped, per its interruption behaviour) with EC2's
   * spot reason.
   */
  spotInterrupt(id: string): void;
  /**
   * Makes RunInstances of this type fail with InsufficientInstanceCapacity in the zone ("*" = every zone), or
   * with false gives the capacity back. A zone's setting wins over every zone's; p5.48xlarge starts exhausted.
   */
  setInsufficientCapacity(
    instanceType: string,
    zone?: string,
    insufficient?: boolean,
    market?: CapacityMarket | '*',
  ): void;
  /** Limits running+pending on-demand vCPUs (VcpuLimitExceeded beyond); undefined removes the limit. */
  setVcpuLimit(vcpus: number | undefined): void;
  /**
   * The instance's own metadata service (IMDS, with IMDSv2 tokens), "http://127.0.0.1:<port>": what
   * AWS_EC2_METADATA_SERVICE_ENDPOINT holds for a program on that instance. `hops` is how far the caller sits
   * from the instance's network interface (1: on the host or with host networking; 2: in a container behind
   * a bridge); a token reply is lost beyond the instance's HttpPutResponseHopLimit, as on EC2.
   */
  metadataEndpoint(id: string, opts?: { hops?: number }): Promise<string>;
  /** How many requests the instance's metadata service received (all hop distances). */
  metadataRequestCount(id: string): number;
  /** Accepts calls signed with this key from now on (replacing the secret of a known id). */
  addAccessKey(key: AccessKey): void;
  /** Refuses calls signed with this key id from now on (AuthFailure); false when it was not known. */
  revokeAccessKey(accessKeyId: string): boolean;
  /** The temporary credentials STS AssumeRoleWithWebIdentity issued (EC2 accepts them until they expire). */
  sessions(): SessionCredentials[];
}

const STATE_FILE = 'ec2-emulator-state.json';

export async function startEc2Emulator(opts: Ec2EmulatorOptions = {}): Promise<Ec2Emulator> {
  const region = opts.region ?? opts.world?.region ?? 'us-east-1';
  const knobs = knobsFromOptions(opts, {
    classify: classifyAction,
    throttleFault: throttleFaultFor,
    serverFault: serverFaultFor,
  });

  let file: StateSnapshotFile<Ec2World> | undefined;
  let world: Ec2World | undefined;
  if (opts.dataDir) ({ file, world } = loadRegionalSnapshot<Ec2World>(opts.dataDir, STATE_FILE, region));
  world ??= opts.world
    ? structuredClone(opts.world)
    : defaultWorld({ region, clusterId: opts.clusterId, accountId: opts.accountId });
  const st = new Ec2State(world, knobs, { ...DEFAULT_TIMINGS, ...opts.timings });
  if (opts.instanceTypesPageSize !== undefined) st.instanceTypesPageSize = opts.instanceTypesPageSize;
  if (opts.stsSessionSeconds !== undefined) st.sessions.defaultSeconds = opts.stsSessionSeconds;
  if (file) persistWorld(st, file);
  st.advance();

  const accessKeys = new AccessKeyStore(opts.accessKeys ?? [EMULATOR_ACCESS_KEY]);
  // Aborted on stop(), so calls still waiting out an injected latency end instead of applying late.
  const shutdown = new AbortController();
  const server: Server = createServer(
    createRequestHandler({
      state: st,
      region,
      maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_EMULATOR_MAX_BODY_BYTES,
      accessKeys,
      shutdown: shutdown.signal,
      log: opts.logger,
    }),
  );

  const port = await listenOnLoopback(server, opts.port);

  const requireInstance = (id: string): Ec2Instance => {
    const inst = st.instance(id);
    if (!inst) throw new Error(`no instance ${id} in the emulator`);
    return inst;
  };
  const outOfBand = (change: () => void) => st.outOfBand(change);
  const metadata = new InstanceMetadataListeners();
  const imdsTokens = new ImdsTokens(st);
  const stopEmulator = emulatorStopper({ server, shutdown, state: st, snapshot: file });

  return {
    endpoint: `http://127.0.0.1:${port}`,
    region,
    knobs,
    world: st.world,
    instances: () => st.world.instances.map((i) => structuredClone(i)),
    instance: (id) => {
      const i = st.instance(id);
      return i ? structuredClone(i) : undefined;
    },
    instanceView: () => instanceViewOf(st),
    terminateOutOfBand: (id) =>
      outOfBand(() =>
        st.terminate(requireInstance(id), {
          code: 'Client.UserInitiatedShutdown',
          message: 'Client.UserInitiatedShutdown: User initiated shutdown',
        }),
      ),
    stopOutOfBand: (id) =>
      outOfBand(() =>
        st.stop(requireInstance(id), {
          code: 'Client.UserInitiatedShutdown',
          message: 'Client.UserInitiatedShutdown: User initiated shutdown',
        }),
      ),
    startOutOfBand: (id) => outOfBand(() => st.start(requireInstance(id), (i) => assignPublicAddress(st, i))),
    shutdownFromInside: (id) =>
      outOfBand(() => {
        const inst = requireInstance(id);
        const reason = {
          code: 'Client.InstanceInitiatedShutdown',
          message: 'Client.InstanceInitiatedShutdown: Instance initiated shutdown',
        };
        if (inst.shutdownBehavior === 'terminate') st.terminate(inst, reason);
        else st.stop(inst, reason);
      }),
    spotInterrupt: (id) => outOfBand(() => st.announceSpotInterruption(requireInstance(id))),
    setTimings: (t) => {
      st.timings = { ...st.timings, ...t };
    },
    setInsufficientCapacity: (instanceType, zone = '*', insufficient = true, market = '*') =>
      st.capacity.set(instanceType, zone, !insufficient, market),
    setVcpuLimit: (vcpus) => {
      st.vcpuLimit = vcpus;
    },
    metadataEndpoint: async (id, o = {}) => {
      requireInstance(id);
      const hops = o.hops ?? 1;
      if (!Number.isInteger(hops) || hops < 1) throw new RangeError(`hops must be an integer >= 1, got ${hops}`);
      return `http://${await metadata.hostFor(`${id}/${hops}`, () => imdsHandler(st, imdsTokens, id, hops), id)}`;
    },
    metadataRequestCount: (id) => metadata.requestCount(id),
    sessions: () => st.sessions.all().map((c) => ({ ...c })),
    addAccessKey: (k) => accessKeys.addKey(k),
    revokeAccessKey: (id) => accessKeys.revokeKey(id),
    adminRoutes: [
      ...credentialsAdminRoutes(accessKeys, {
        add: '{"accessKeyId", "secretAccessKey"}',
        revoke: '{"accessKeyId"}',
      }),
      ...capacityAdminRoutes({
        typeField: 'instanceType',
        markets: ['on-demand', 'spot'],
        setCapacity: (type, zone, market, available) => st.capacity.set(type, zone, available, market),
        interrupt: (id) => outOfBand(() => st.announceSpotInterruption(requireInstance(id))),
      }),
    ],
    advance: () => st.advance(),
    stop: async () => {
      await metadata.closeAll();
      await stopEmulator();
    },
  };
}
