// A local EC2 (plus classic ELB and ELBv2) endpoint speaking the real Query protocol, so @aws-sdk clients and
// the aws CLI run against it unmodified with only their endpoint changed. Listens on loopback only.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock, Logger } from '../../../lib/index.js';
import {
  dropConnection,
  EmulatorFault,
  EmulatorKnobs,
  type EmulatorKnobsConfig,
  type InstanceView,
} from '../../../lib/testing/index.js';
import { ACTIONS } from './action-tables.js';
import { Ec2ApiError } from './api-error.js';
import { defaultWorld } from './default-world.js';
import { DEFAULT_TIMINGS, Ec2State, type InstanceTimings } from './ec2-state.js';
import { instanceViewOf } from './instance-view.js';
import type { Ec2Instance, Ec2World } from './model.js';
import { WorldFile } from './persistence.js';
import { QueryParams } from './query-params.js';
import { assignPublicAddress } from './actions/run-instances.js';
import { actionKey, classifyAction, errorXml, SERVICE_BY_VERSION, serverFaultFor, successXml, throttleFaultFor, type ServiceName } from './wire.js';
import { Xml, type XmlChild, el } from './xml.js';

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

  const log = opts.logger;
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log?.error('ec2 emulator: unexpected failure answering a request', { error: String(err) });
      if (!res.headersSent) send(res, 'ec2', 500, errorXml('ec2', 500, 'InternalError', 'An internal error has occurred', randomUUID()), '');
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    const fail = (service: ServiceName, status: number, code: string, message: string) =>
      send(res, service, status, errorXml(service, status, code, message, requestId), requestId);

    if (req.method !== 'POST' && req.method !== 'GET') {
      req.resume();
      fail('ec2', 405, 'UnsupportedHttpVerb', `The HTTP verb ${req.method ?? ''} is not supported; use POST or GET`);
      return;
    }
    const body = await readBody(req, maxBody);
    if (body === undefined) {
      res.setHeader('connection', 'close');
      fail('ec2', 413, 'RequestEntityTooLarge', `The request body exceeds ${maxBody} bytes`);
      res.on('finish', () => req.socket.destroy());
      return;
    }
    const contentType = req.headers['content-type'] ?? '';
    if (body.length > 0 && contentType !== '' && !contentType.startsWith('application/x-www-form-urlencoded')) {
      fail('ec2', 400, 'MalformedQueryString', `Unsupported content type '${contentType}': the Query protocol expects application/x-www-form-urlencoded`);
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const raw = `${url.search.slice(1)}&${body}`;
    if (/%(?![0-9A-Fa-f]{2})/.test(raw)) {
      fail('ec2', 400, 'MalformedQueryString', 'The query string contains an invalid percent-encoding');
      return;
    }
    const params = QueryParams.fromSearchParams(new URLSearchParams(raw));
    const action = params.get('Action');
    const version = params.get('Version');
    if (!action) {
      fail('ec2', 400, 'MissingAction', 'The request must contain the parameter Action');
      return;
    }
    if (!version) {
      fail('ec2', 400, 'MissingParameter', 'The request must contain the parameter Version');
      return;
    }
    const service = SERVICE_BY_VERSION[version];
    if (!service) {
      fail('ec2', 400, 'NoSuchVersion', `The requested version (${version}) of service is not supported by this emulator`);
      return;
    }
    const handler = ACTIONS[service][action];
    if (!handler) {
      fail(service, 400, 'InvalidAction', `The action ${action} is not valid for this web service.`);
      return;
    }
    const authError = checkAuth(req.headers.authorization, opts.requireAccessKeyId, region);
    if (authError) {
      fail(service, 401, 'AuthFailure', authError);
      return;
    }

    const key = actionKey(service, action);
    try {
      await knobs.before(key);
      st.advance();
      const result = handler({ params, state: st });
      const lost = knobs.afterEffect(key);
      if (lost?.mode === 'drop-connection') {
        dropConnection(res);
        return;
      }
      if (lost) {
        fail(service, lost.fault.status, lost.fault.code, lost.fault.message);
        return;
      }
      send(res, service, 200, successXml(service, action, renderChild(result), requestId), requestId);
    } catch (err) {
      if (err instanceof EmulatorFault) {
        fail(service, err.status, err.code, err.message);
      } else if (err instanceof Ec2ApiError) {
        knobs.recordError(key);
        fail(service, err.status, err.code, err.message);
      } else {
        knobs.recordError(key);
        throw err;
      }
    }
  }

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
      st.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      file?.saveNow();
    },
  };
}

function renderChild(c: XmlChild): string {
  return el('x', c).text.replace(/^<x>|<\/x>$|^<x\/>$/g, '');
}

function send(res: ServerResponse, service: ServiceName, status: number, xml: string, requestId: string): void {
  res.writeHead(status, {
    'content-type': 'text/xml;charset=UTF-8',
    'content-length': Buffer.byteLength(xml),
    'x-amzn-requestid': requestId,
    server: service === 'ec2' ? 'AmazonEC2' : 'AmazonELB',
  });
  res.end(xml);
}

/** The body as text, or undefined when it exceeds the limit. */
function readBody(req: IncomingMessage, max: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        tooBig = true;
        chunks.length = 0;
        return;
      }
      if (!tooBig) chunks.push(c);
    });
    req.on('end', () => resolve(tooBig ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** SigV4 presence and scope check; returns the AuthFailure message, or undefined when acceptable. */
function checkAuth(header: string | undefined, accessKeyId: string | undefined, region: string): string | undefined {
  if (accessKeyId === undefined) return undefined;
  const m = /Credential=([^/,\s]+)\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/.exec(header ?? '');
  if (!m) return 'AWS was not able to validate the provided access credentials';
  if (m[1] !== accessKeyId) return 'AWS was not able to validate the provided access credentials';
  if (m[2] !== region) return `Credential should be scoped to a valid region, not '${m[2]}'.`;
  return undefined;
}

export { Xml };
