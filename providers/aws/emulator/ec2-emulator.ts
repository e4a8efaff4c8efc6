// A local EC2 (plus classic ELB and ELBv2) endpoint speaking the real Query protocol, so @aws-sdk clients and
// the aws CLI run against it unmodified with only their endpoint changed. Listens on loopback only.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock, Logger } from '../../../lib/index.js';
import { EmulatorKnobs, type EmulatorKnobsConfig, type InstanceView } from '../../../lib/testing/index.js';
import { assignPublicAddress } from './actions/run-instances.js';
import { defaultWorld } from './default-world.js';
import { DEFAULT_TIMINGS, Ec2State, type InstanceTimings } from './ec2-state.js';
import { instanceViewOf } from './instance-view.js';
import type { Ec2Instance, Ec2World } from './model.js';
import { WorldFile } from './persistence.js';
import { createRequestHandler } from './request-handler.js';
import { classifyAction, serverFaultFor, throttleFaultFor } from './wire.js';

export interface Ec2EmulatorOptions {
  /** Default "us-east-1". One emulator serves one region (DescribeRegions still lists them all). */
  region?: string;
  /** Infrastructure name used by the default world's resource names and cluster tags. Default "test-cluster". */
  clusterId?: string;
  accountId?: string;
  /** Replaces the default world entirely (deep-copied). */
  world?: Ec2World;
  clock?: Clock;
  /** Seeds instance ids, addresses and probabilistic faults. Default 1. */
  seed?: number;
  timings?: Partial<InstanceTimings>;
  /** Fault knobs applied at start (they can also be changed later through `knobs`). */
  knobs?: EmulatorKnobsConfig;
  /** When set, the world is restored from and saved to this directory. */
  dataDir?: string;
  /** Default 0 (any free port). The host is always 127.0.0.1. */
  port?: number;
  /** DescribeInstanceTypes page size when the caller sends no MaxResults. Default 100, as on AWS. */
  instanceTypesPageSize?: number;
  /** Bodies larger than this are refused with 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** When set, requests must carry a SigV4 Authorization for this access key id (the signature is not verified). */
  requireAccessKeyId?: string;
  logger?: Logger;
}

export interface Ec2Emulator {
  /** "http://127.0.0.1:<port>", for the SDK's `endpoint` or the CLI's `--endpoint-url`. */
  readonly endpoint: string;
  readonly region: string;
  readonly knobs: EmulatorKnobs;
  /** The live world (seed resources, instances, hosts, load balancers). Mutate only between calls. */
  readonly world: Ec2World;
  /** Copies of every instance the emulator holds, terminated ones included until they expire. */
  instances(): Ec2Instance[];
  instance(id: string): Ec2Instance | undefined;
  instanceView(): InstanceView;
  /** Terminates an instance as if someone did it in the console (no API call counted). */
  terminateOutOfBand(id: string): void;
  stopOutOfBand(id: string): void;
  startOutOfBand(id: string): void;
  /** The OS shuts itself down: the instance stops, or terminates if launched with InstanceInitiatedShutdownBehavior=terminate. */
  shutdownFromInside(id: string): void;
  /** Reclaims a spot instance: terminated (or stopped, per its interruption behaviour) with EC2's spot reason. */
  spotInterrupt(id: string): void;
  /** Changes lifecycle delays for transitions scheduled from now on. */
  setTimings(timings: Partial<InstanceTimings>): void;
  /** Makes RunInstances of this type fail with InsufficientInstanceCapacity in the zone ("*" = every zone). */
  setInsufficientCapacity(instanceType: string, zone?: string, insufficient?: boolean): void;
  /** Limits running+pending on-demand vCPUs (VcpuLimitExceeded beyond); undefined removes the limit. */
  setVcpuLimit(vcpus: number | undefined): void;
  /** Applies every lifecycle transition already due (useful right after stepping a FakeClock). */
  advance(): void;
  stop(): Promise<void>;
}

const DEFAULT_MAX_BODY = 1024 * 1024;

export async function startEc2Emulator(opts: Ec2EmulatorOptions = {}): Promise<Ec2Emulator> {
  const region = opts.region ?? opts.world?.region ?? 'us-east-1';
  const knobs = new EmulatorKnobs({
    clock: opts.clock,
    seed: opts.seed ?? 1,
    classify: classifyAction,
    throttleFault: throttleFaultFor,
    serverFault: serverFaultFor,
  });
  if (opts.knobs) knobs.configure(opts.knobs);

  let file: WorldFile | undefined;
  let world: Ec2World | undefined;
  if (opts.dataDir) {
    file = new WorldFile(opts.dataDir);
    world = file.load();
    if (world && world.region !== region) {
      throw new Error(`dataDir ${opts.dataDir} holds an emulator state for region ${world.region}, not ${region}`);
    }
  }
  world ??= opts.world ? structuredClone(opts.world) : defaultWorld({ region, clusterId: opts.clusterId, accountId: opts.accountId });
  const st = new Ec2State(world, knobs, { ...DEFAULT_TIMINGS, ...opts.timings });
  if (opts.instanceTypesPageSize !== undefined) st.instanceTypesPageSize = opts.instanceTypesPageSize;
  if (file) {
    const f = file;
    f.snapshot = () => st.world;
    st.onPersist = () => f.scheduleSave();
  }
  st.advance();

  // Aborted on stop(), so calls still waiting out an injected latency end instead of applying late.
  const shutdown = new AbortController();
  const server: Server = createServer(
    createRequestHandler({
      state: st,
      region,
      maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_BODY,
      requireAccessKeyId: opts.requireAccessKeyId,
      shutdown: shutdown.signal,
      log: opts.logger,
    }),
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  const requireInstance = (id: string): Ec2Instance => {
    const inst = st.instance(id);
    if (!inst) throw new Error(`no instance ${id} in the emulator`);
    return inst;
  };
  const outOfBand = (fn: () => void) => {
    st.advance();
    fn();
    st.changed();
  };
  let stopped = false;

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
      outOfBand(() => st.terminate(requireInstance(id), { code: 'Client.UserInitiatedShutdown', message: 'Client.UserInitiatedShutdown: User initiated shutdown' })),
    stopOutOfBand: (id) =>
      outOfBand(() => st.stop(requireInstance(id), { code: 'Client.UserInitiatedShutdown', message: 'Client.UserInitiatedShutdown: User initiated shutdown' })),
    startOutOfBand: (id) => outOfBand(() => st.start(requireInstance(id), (i) => assignPublicAddress(st, i))),
    shutdownFromInside: (id) =>
      outOfBand(() => {
        const inst = requireInstance(id);
        const reason = { code: 'Client.InstanceInitiatedShutdown', message: 'Client.InstanceInitiatedShutdown: Instance initiated shutdown' };
        if (inst.shutdownBehavior === 'terminate') st.terminate(inst, reason);
        else st.stop(inst, reason);
      }),
    spotInterrupt: (id) =>
      outOfBand(() => {
        const inst = requireInstance(id);
        if (inst.lifecycle !== 'spot') throw new Error(`instance ${id} is not a spot instance`);
        if (inst.spotInterruptionBehavior === 'terminate' || inst.spotInterruptionBehavior === undefined) {
          st.terminate(inst, { code: 'Server.SpotInstanceTermination', message: 'Server.SpotInstanceTermination: Spot instance termination' });
        } else {
          if (inst.state !== 'running') throw new Error(`spot instance ${id} is ${inst.state}, not running`);
          st.stop(inst, { code: 'Server.SpotInstanceShutdown', message: 'Server.SpotInstanceShutdown: Spot instance shutdown' });
        }
      }),
    setTimings: (t) => {
      st.timings = { ...st.timings, ...t };
    },
    setInsufficientCapacity: (instanceType, zone = '*', insufficient = true) => {
      const k = `${instanceType}@${zone}`;
      if (insufficient) st.insufficientCapacity.add(k);
      else st.insufficientCapacity.delete(k);
    },
    setVcpuLimit: (vcpus) => {
      st.vcpuLimit = vcpus;
    },
    advance: () => st.advance(),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      shutdown.abort();
      st.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      file?.saveNow();
    },
  };
}
