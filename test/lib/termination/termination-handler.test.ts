// The poller against the local control plane, with a scripted notice source and a clock stepped by hand.
import { expect } from 'chai';
import type { Node } from '../../../lib/apis/core.js';
import type { KubeClient } from '../../../lib/client/kube-client.js';
import { Nodes } from '../../../lib/client/resources.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { nullLogger } from '../../../lib/base/structured-logger.js';
import {
  MetadataServiceError,
  runTerminationHandler,
  type TerminationHandlerOptions,
  type TerminationNotice,
  type TerminationNoticeSource,
} from '../../../lib/termination/index.js';
import { eventually, startTestEnv, type TestEnv } from '../../../sim/kit/index.js';

/** Answers each check with the next scripted step (the last one repeats) and records when it was asked. */
class ScriptedSource implements TerminationNoticeSource {
  readonly cloud = 'scripted';
  readonly askedAt: number[] = [];
  constructor(
    private readonly clock: FakeClock,
    private readonly script: Array<TerminationNotice | undefined | Error>,
  ) {}
  check(): Promise<TerminationNotice | undefined> {
    this.askedAt.push(this.clock.now());
    const step = this.script[Math.min(this.askedAt.length - 1, this.script.length - 1)];
    return step instanceof Error ? Promise.reject(step) : Promise.resolve(step);
  }
}

const POLL = 5_000;

describe('the termination handler', function () {
  this.timeout(30_000);
  let env: TestEnv;
  let client: KubeClient;
  let clock: FakeClock;
  let stop: AbortController;

  before(async () => (env = await startTestEnv()));
  after(async () => env?.stop());
  beforeEach(() => {
    client = env.client;
    clock = new FakeClock(Date.UTC(2026, 10, 26, 9));
    stop = new AbortController();
  });
  afterEach(() => stop.abort());

  let seq = 0;
  async function node(providerID: string, extra: Partial<Node> = {}): Promise<string> {
    const name = `node-${++seq}`;
    await client.create(Nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: { providerID }, ...extra });
    await client.patch(
      Nodes,
      { name },
      { type: 'merge', body: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] } } },
      { subresource: 'status' },
    );
    return name;
  }

  function run(
    nodeName: string,
    source: TerminationNoticeSource | undefined,
    over: Partial<TerminationHandlerOptions> = {},
  ) {
    return runTerminationHandler(
      {
        client,
        nodeName,
        sources: source ? { aws: () => source } : {},
        pollIntervalMs: POLL,
        clock,
        logger: nullLogger(),
        ...over,
      },
      stop.signal,
    );
  }

  /** Waits (in real time) until the handler sleeps on the clock, then moves the clock to its wake-up. */
  async function stepToNextWake(): Promise<number> {
    const at = await eventually('the handler waiting on the clock', async () => clock.nextTimerAt());
    const waited = at - clock.now();
    clock.setTime(at);
    return waited;
  }

  const conditionsOf = async (name: string) => (await client.get(Nodes, { name })).status?.conditions ?? [];

  it("checks every poll interval and, on a notice, sets Terminating=True once, keeping the node's other conditions", async () => {
    const name = await node('aws:///us-east-1a/i-0abc');
    const source = new ScriptedSource(clock, [
      undefined,
      undefined,
      { action: 'terminate', time: '2026-11-26T09:02:00Z' },
    ]);
    const outcome = run(name, source);
    expect(await stepToNextWake()).to.equal(POLL);
    expect(await stepToNextWake()).to.equal(POLL);
    expect(await outcome).to.equal('marked');
    expect(source.askedAt.map((t) => t - source.askedAt[0]!)).to.deep.equal([0, POLL, 2 * POLL]);
    const conditions = await conditionsOf(name);
    expect(conditions.map((c) => `${c.type}=${c.status}`)).to.deep.equal(['Ready=True', 'Terminating=True']);
    expect(conditions[1]).to.include({
      reason: 'TerminationRequested',
      message: 'The cloud provider has marked this instance for termination',
    });
  });

  it('leaves a node that already says Terminating=True untouched', async () => {
    const name = await node('aws:///us-east-1a/i-0abd');
    await client.patch(
      Nodes,
      { name },
      {
        type: 'merge',
        body: { status: { conditions: [{ type: 'Terminating', status: 'True', reason: 'TerminationRequested' }] } },
      },
      { subresource: 'status' },
    );
    const before = (await client.get(Nodes, { name })).metadata.resourceVersion;
    expect(await run(name, new ScriptedSource(clock, [{}]))).to.equal('marked');
    expect((await client.get(Nodes, { name })).metadata.resourceVersion).to.equal(before);
  });

  it('never gives up on a failing metadata service: retries with doubling waits, then polls normally again', async () => {
    const name = await node('aws:///us-east-1a/i-0abe');
    const down = new MetadataServiceError('/latest/meta-data/spot/instance-action', 500, 'HTTP 500');
    const source = new ScriptedSource(clock, [down, down, down, undefined, { action: 'stop' }]);
    const outcome = run(name, source, { retry: { initialMs: 1_000, maxMs: 3_000 } });
    const waits = [await stepToNextWake(), await stepToNextWake(), await stepToNextWake(), await stepToNextWake()];
    expect(waits).to.deep.equal([1_000, 2_000, 3_000, POLL]);
    expect(await outcome).to.equal('marked');
  });

  it('asks again at once after a check that itself waited a poll interval (a hanging GET)', async () => {
    const name = await node('aws:///us-east-1a/i-0abf');
    let calls = 0;
    const hanging: TerminationNoticeSource = {
      cloud: 'hanging',
      check: async (signal) => {
        calls++;
        if (calls === 1) {
          await clock.sleep(POLL, signal);
          return undefined;
        }
        return { action: 'terminate' };
      },
    };
    const outcome = run(name, hanging);
    expect(await stepToNextWake()).to.equal(POLL);
    expect(await outcome).to.equal('marked');
    expect(calls).to.equal(2);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('waits for its Node to exist and to carry a providerID before choosing a cloud', async () => {
    const name = `node-late-${++seq}`;
    const source = new ScriptedSource(clock, [{ action: 'terminate' }]);
    const outcome = run(name, source, { retry: { initialMs: 1_000, maxMs: 1_000 } });
    await stepToNextWake();
    await client.create(Nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {} });
    await stepToNextWake();
    expect(source.askedAt).to.have.length(0);
    await client.patch(Nodes, { name }, { type: 'merge', body: { spec: { providerID: 'aws:///us-east-1b/i-0late' } } });
    await stepToNextWake();
    expect(await outcome).to.equal('marked');
    expect((await conditionsOf(name)).map((c) => c.type)).to.deep.equal(['Terminating']);
  });

  it('says so and does nothing on a cloud without reclaim notices (an IBM Cloud node)', async () => {
    const name = await node('ibm://account/us-south/us-south-1/worker/0717_abc');
    const source = new ScriptedSource(clock, [{ action: 'terminate' }]);
    expect(await run(name, source)).to.equal('unsupported');
    expect(source.askedAt).to.have.length(0);
    expect((await conditionsOf(name)).map((c) => c.type)).to.deep.equal(['Ready']);
  });

  it('ends cleanly when stopped while waiting', async () => {
    const name = await node('aws:///us-east-1a/i-0ac0');
    const outcome = run(name, new ScriptedSource(clock, [undefined]));
    await eventually('the handler waiting on the clock', async () => clock.nextTimerAt());
    stop.abort(new Error('SIGTERM'));
    expect(await outcome).to.equal('stopped');
  });

  it("keeps a status write that lands between its read and its write (the kubelet's heartbeat)", async () => {
    const name = await node('aws:///us-east-1a/i-0ac1');
    let raced = false;
    const racing: KubeClient = Object.create(client) as KubeClient;
    racing.get = async (resource, key, opts) => {
      const got = await client.get(resource, key, opts);
      if (!raced && resource === (Nodes as unknown)) {
        raced = true;
        await client.patch(
          Nodes,
          { name },
          {
            type: 'merge',
            body: {
              status: {
                conditions: [
                  { type: 'Ready', status: 'True' },
                  { type: 'MemoryPressure', status: 'False' },
                ],
              },
            },
          },
          { subresource: 'status' },
        );
      }
      return got;
    };
    const source = new ScriptedSource(clock, [{ action: 'terminate' }]);
    expect(await run(name, source, { client: racing })).to.equal('marked');
    expect((await conditionsOf(name)).map((c) => c.type)).to.deep.equal(['Ready', 'MemoryPressure', 'Terminating']);
  });
});
