// The cloud of the worked example provider: instances in memory, with what makes a real cloud hard to drive —
// instances that boot and terminate over time, reads that may not show a new instance yet, launches made
// idempotent by a client token, replies that get lost, and throttling. A real provider talks to its SDK instead.
import { type Clock } from '@machine-api-ts/lib';

export interface ExampleInstance {
  id: string;
  name: string;
  /** The launch's client token: the same token launches nothing new. */
  token: string;
  zone: string;
  instanceType: string;
  state: 'pending' | 'running' | 'terminating' | 'terminated';
  privateIp: string;
}

/** The cloud's errors, typed by code as an SDK's are. */
export class ExampleCloudError extends Error {
  constructor(
    readonly code: 'Throttled' | 'UnknownZone' | 'ReplyLost' | 'NoCapacity',
    message: string,
  ) {
    super(message);
    this.name = 'ExampleCloudError';
  }
}

export interface ExampleCloudOptions {
  /** How long a new instance stays pending (default 0). */
  bootMs?: number;
  /** How long a terminating instance takes to terminate (default 0). */
  terminateMs?: number;
  /** How long reads do not show a new instance (default 0). */
  visibilityMs?: number;
  zones?: readonly string[];
}

interface Stored extends Omit<ExampleInstance, 'state'> {
  launchedAt: number;
  terminatedAt?: number;
}

export class ExampleCloud {
  /** Every call, by name, in order (what a test counts). */
  readonly calls: string[] = [];
  private readonly instances = new Map<string, Stored>();
  private seq = 0;
  private lostReplies = 0;
  private throttled = false;
  /** Instance type and zone pairs ("type|zone") the cloud has no capacity for. */
  private readonly exhausted = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly o: ExampleCloudOptions = {},
  ) {}

  async launch(req: { token: string; name: string; zone: string; instanceType: string }): Promise<ExampleInstance> {
    this.gate('launch');
    if (!(this.o.zones ?? ['example-zone-a', 'example-zone-b']).includes(req.zone))
      throw new ExampleCloudError('UnknownZone', `zone ${req.zone} does not exist`);
    let stored = [...this.instances.values()].find((i) => i.token === req.token);
    if (!stored && this.exhausted.has(`${req.instanceType}|${req.zone}`))
      throw new ExampleCloudError('NoCapacity', `no ${req.instanceType} capacity in ${req.zone}`);
    if (!stored) {
      const n = ++this.seq;
      stored = {
        ...req,
        id: `i-${n.toString(16).padStart(8, '0')}`,
        privateIp: `10.0.${Math.floor(n / 250)}.${(n % 250) + 2}`,
        launchedAt: this.clock.now(),
      };
      this.instances.set(stored.id, stored);
    }
    if (this.lostReplies > 0) {
      this.lostReplies--;
      throw new ExampleCloudError('ReplyLost', 'the connection closed before the reply');
    }
    return this.view(stored);
  }

  /** The instance by id, unless reads do not show it yet. Terminated instances stay visible. */
  async get(id: string): Promise<ExampleInstance | undefined> {
    this.gate('get');
    const stored = this.instances.get(id);
    return stored && this.visible(stored) ? this.view(stored) : undefined;
  }

  async findByName(name: string): Promise<ExampleInstance[]> {
    this.gate('findByName');
    return [...this.instances.values()].filter((i) => i.name === name && this.visible(i)).map((i) => this.view(i));
  }

  async terminate(id: string): Promise<void> {
    this.gate('terminate');
    const stored = this.instances.get(id);
    if (stored && stored.terminatedAt === undefined) stored.terminatedAt = this.clock.now();
  }

  /** The next launch takes effect but its reply is lost. */
  loseNextReply(): void {
    this.lostReplies++;
  }

  /** Whether launches of the instance type in the zone find capacity. */
  setCapacity(instanceType: string, zone: string, available: boolean): void {
    if (available) this.exhausted.delete(`${instanceType}|${zone}`);
    else this.exhausted.add(`${instanceType}|${zone}`);
  }

  /** Launch calls made so far, refused ones included. */
  launches(): number {
    return this.calls.filter((c) => c === 'launch').length;
  }

  /** The live instances of a name, as they are (which type, which zone). */
  liveInstancesNamed(name: string): ExampleInstance[] {
    return [...this.instances.values()]
      .filter((i) => i.name === name)
      .map((i) => this.view(i))
      .filter((i) => i.state !== 'terminated');
  }

  throttle(on: boolean): void {
    this.throttled = on;
  }

  /** Instances not terminated, whoever's they are, by name (what a test counts). */
  liveNamed(name: string): number {
    return [...this.instances.values()].filter((i) => i.name === name && this.view(i).state !== 'terminated').length;
  }

  private gate(call: string): void {
    this.calls.push(call);
    if (this.throttled) throw new ExampleCloudError('Throttled', 'request limit exceeded');
  }

  private visible(i: Stored): boolean {
    return this.clock.now() >= i.launchedAt + (this.o.visibilityMs ?? 0);
  }

  private view(i: Stored): ExampleInstance {
    const now = this.clock.now();
    const { launchedAt: _l, terminatedAt, ...rest } = i;
    let state: ExampleInstance['state'] = now >= i.launchedAt + (this.o.bootMs ?? 0) ? 'running' : 'pending';
    if (terminatedAt !== undefined)
      state = now >= terminatedAt + (this.o.terminateMs ?? 0) ? 'terminated' : 'terminating';
    return { ...rest, state };
  }
}
