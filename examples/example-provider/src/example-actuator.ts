// The worked example of a provider: an actuator for ExampleCloud built on the cloud actuator template. It is all
// a provider writes: decode its providerSpec into a scope, then five ports (look the instance up, launch it,
// record it, terminate it, and say what its id and booting state are). Finalizer safety, the visibility rule,
// the launch ledger, events, metrics and what a reconcile's calls share come from the template.
// README's "Adding a provider" walks through this file.
import {
  type ActionClass,
  type ActuatorContext,
  type Clock,
  CloudActuator,
  type CapacityEntry,
  decodeFallbacks,
  FALLBACKS_FIELD,
  type FallbackDecoding,
  type CloudMachineScope,
  type CloudProviderStatus,
  type CommonProviderStatus,
  InvalidMachineConfigurationError,
  invalidValue,
  isCloudCallDeferred,
  type Machine,
  MachineCreationCondition,
  MachineInstanceStateAnnotation,
  messageOf,
  placementLabels,
  providerStatusSaver,
  readCommonProviderStatus,
  type RegionalRateLimiter,
  SpecReader,
  throwOnFieldIssues,
} from '@machine-api-ts/lib';
import { ExampleCloudError, type ExampleCloud, type ExampleInstance } from './example-cloud.js';

const SPEC_PATH = 'spec.providerSpec.value';
const ZONE_SHAPE = /^[a-z]+-zone-[a-z]$/;

// Step 1: the providerSpec and the scope. Every wrong type names its field; unknown fields are warned about.
export interface ExampleSpec {
  instanceType: string;
  zone: string;
}

export interface ExampleScope extends CloudMachineScope {
  readonly spec: ExampleSpec;
  readonly status: CloudProviderStatus;
  /** The capacity fallback entries, each merged over the spec. */
  readonly fallbacks: readonly ExampleSpec[];
}

/** Reads one whole spec at `path`: the spec, the issues and the unknown fields. */
function readExampleSpec(value: unknown, path: string) {
  const reader = new SpecReader();
  const root = reader.object(value ?? {}, path);
  const spec = {
    instanceType: root?.string('instanceType') ?? 'example.small',
    zone: root?.string('zone') ?? 'example-zone-a',
  };
  root?.raw(FALLBACKS_FIELD);
  root?.done();
  if (reader.errors.length === 0 && !ZONE_SHAPE.test(spec.zone))
    reader.errors.push(invalidValue(`${path}.zone`, spec.zone, 'must look like <region>-zone-<letter>'));
  return { spec, errors: reader.errors, unknownFields: reader.unknownFields };
}

/** The example cloud's capacity fields: an entry may name another instance type and another zone. */
const exampleFallbacks: FallbackDecoding<ExampleSpec> = {
  rules: { fields: ['instanceType', 'zone'] },
  decode: readExampleSpec,
  typeOf: (spec) => ({ field: 'instanceType', name: spec.instanceType }),
};

export function decodeExampleSpec(machine: Machine): {
  spec: ExampleSpec;
  fallbacks: ExampleSpec[];
  unknownFields: string[];
} {
  const value = machine.spec?.providerSpec?.value;
  const { spec, errors, unknownFields } = readExampleSpec(value, SPEC_PATH);
  const fallbacks = decodeFallbacks(value, SPEC_PATH, spec, errors, exampleFallbacks);
  throwOnFieldIssues([...errors, ...fallbacks.errors]);
  return { spec, fallbacks: fallbacks.specs, unknownFields };
}

/** The provider status, with the fields every provider's status has (the example adds none). */
const statusOf = (machine: Machine): CommonProviderStatus =>
  readCommonProviderStatus(machine.status?.providerStatus).status;

export interface ExampleActuatorOptions {
  cloud: ExampleCloud;
  clock: Clock;
  /**
   * The rate limiter every cloud call waits in (a real provider always has one): a launch or terminate made in a
   * reconcile that would wait long is deferred to its turn instead (CloudRateLimitedError, a RequeueAfterError).
   */
  limiter?: RegionalRateLimiter;
  /** How long after a launch reads may not show the instance (default: the template's). */
  visibilityWindowMs?: number;
}

/** The example cloud's throttling reply, for the limiter. */
const isExampleThrottling = (err: unknown) => err instanceof ExampleCloudError && err.code === 'Throttled';

export class ExampleActuator extends CloudActuator<ExampleScope, ExampleInstance> {
  private readonly cloud: ExampleCloud;
  private readonly limiter?: RegionalRateLimiter;

  constructor(o: ExampleActuatorOptions) {
    // Step 2: what the template needs to know about this cloud.
    super(
      { clock: o.clock, eventualConsistencyWindowMs: o.visibilityWindowMs, requeueAfterMs: 1_000 },
      {
        isTerminating: (state) => state === 'terminating' || state === 'terminated',
        idFromLaunchReply: true,
        creationCondition: MachineCreationCondition,
        failureReasons: {
          create: 'failed to create instance',
          update: 'failed to update instance',
          delete: 'failed to delete instance',
        },
        describeError: messageOf,
      },
    );
    this.cloud = o.cloud;
    this.limiter = o.limiter;
  }

  /** A call to the cloud, through the limiter when there is one; the example cloud is one scope. */
  private call<T>(cls: ActionClass, fn: () => Promise<T>): Promise<T> {
    return this.limiter ? this.limiter.send('example', cls, fn, { isThrottling: isExampleThrottling }) : fn();
  }

  referencedSecrets(): string[] {
    return [];
  }

  protected async newScope(machine: Machine): Promise<ExampleScope> {
    const { spec, fallbacks, unknownFields } = decodeExampleSpec(machine);
    const status = statusOf(machine);
    const saveStatus = providerStatusSaver(machine, () => ({ ...status }));
    return { machine, spec, fallbacks, status, unknownFields, saveStatus };
  }

  // With fallbacks: each entry is a scope of its own, and what capacity it asks for; the template picks.
  protected override capacityEntries(scope: ExampleScope): CapacityEntry<ExampleScope>[] | undefined {
    if (scope.fallbacks.length === 0) return undefined;
    return [scope.spec, ...scope.fallbacks].map((spec) => ({
      scope: { ...scope, spec },
      choice: { instanceType: spec.instanceType, zone: spec.zone, market: 'on-demand' },
      region: 'example',
    }));
  }

  protected idOf(instance: ExampleInstance): string {
    return instance.id;
  }

  protected isBooting(instance: ExampleInstance): boolean {
    return instance.state === 'pending';
  }

  // Step 3: look the instance up, by the id on record, else by the Machine's identity (name and launch token).
  protected async lookUp(scope: ExampleScope): Promise<ExampleInstance | 'ended' | undefined> {
    const id = this.instanceIdOnRecord(scope);
    const byId = id ? await this.call('describe', () => this.cloud.get(id)) : undefined;
    if (byId && byId.state !== 'terminated') return byId;
    const uid = scope.machine.metadata.uid ?? '';
    const ours = (await this.call('describe', () => this.cloud.findByName(scope.machine.metadata.name ?? ''))).find(
      (i) => (i.token === uid || i.token.startsWith(`${uid}/`)) && i.state !== 'terminated',
    );
    return ours ?? (byId ? 'ended' : undefined);
  }

  // Step 4: launch, idempotently (the token is the Machine's UID, and its capacity entry's number for a
  // fallback), and record the id at once. A refusal for capacity is typed as such: the template moves on.
  protected async createInstance(scope: ExampleScope, ctx: ActuatorContext): Promise<void> {
    const { machine, spec } = scope;
    const entry = scope.status.capacityEntry?.index ?? 0;
    const request = {
      token: entry === 0 ? (machine.metadata.uid ?? '') : `${machine.metadata.uid ?? ''}/${entry}`,
      name: machine.metadata.name ?? '',
      zone: spec.zone,
      instanceType: spec.instanceType,
    };
    let instance: ExampleInstance;
    try {
      const refused = (err: unknown) => err instanceof ExampleCloudError && err.code !== 'ReplyLost';
      instance = await this.launch(
        scope,
        () => this.call('mutate', () => this.cloud.launch(request)),
        (i) => i.id,
        (err) => !refused(err),
      );
    } catch (err) {
      // Deferred for the cloud's rate: nothing was sent, and the Machine comes again at its turn.
      if (isCloudCallDeferred(err)) throw err;
      if (err instanceof ExampleCloudError && err.code === 'NoCapacity') {
        const capacity = { code: err.code, zone: spec.zone, instanceType: spec.instanceType, detail: err.message };
        throw this.launchFailed(scope, err, { kind: 'capacity', message: err.message, reason: 'failed', capacity });
      }
      this.creationFailed(scope, messageOf(err));
      if (err instanceof ExampleCloudError && err.code === 'UnknownZone')
        throw new InvalidMachineConfigurationError(err.message, { field: `${SPEC_PATH}.zone`, cause: err });
      throw err;
    }
    this.record(scope, instance);
    this.announceCreated(machine, ctx, { instanceId: instance.id });
  }

  // Step 5: record what the instance says on the Machine: providerID, addresses, labels, state.
  protected async updateInstance(scope: ExampleScope, seen: ExampleInstance | undefined): Promise<void> {
    const found = this.toRecord(seen ?? (await this.lookUp(scope)));
    const m = scope.machine;
    m.spec = { ...m.spec, providerID: `example:///${found.zone}/${found.id}` };
    m.status = { ...m.status, addresses: [{ type: 'InternalIP', address: found.privateIp }] };
    const region = found.zone.slice(0, found.zone.indexOf('-zone-'));
    m.metadata.labels = {
      ...m.metadata.labels,
      ...placementLabels({ region, zone: found.zone, instanceType: found.instanceType }),
    };
    m.metadata.annotations = { ...m.metadata.annotations, [MachineInstanceStateAnnotation]: found.state };
    this.record(scope, found);
  }

  // Step 6: terminate; with nothing found, released() decides whether the finalizer may go.
  protected async deleteInstance(scope: ExampleScope, ctx: ActuatorContext): Promise<boolean> {
    const m = scope.machine;
    const found = await this.lookUp(scope);
    if (!found || found === 'ended') {
      if (!found) this.released(scope, ctx, { name: m.metadata.name });
      else this.forget(m.metadata.uid ?? '');
      return false;
    }
    this.foundWhileDeleting(m.metadata.uid ?? '');
    if (found.state !== 'terminating') await this.call('mutate', () => this.cloud.terminate(found.id));
    this.terminating(scope, ctx, 'terminating', { instanceId: found.id });
    return true;
  }

  private record(scope: ExampleScope, instance: ExampleInstance): void {
    scope.status.instanceId = instance.id;
    scope.status.instanceState = instance.state;
    this.creationSucceeded(scope);
  }
}
