import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { FakeClock } from '../../../../lib/base/fake-clock.js';
import type { Logger } from '../../../../lib/base/logger.js';
import {
  closeServer,
  EmulatorKnobs,
  listenOnLoopback,
  readBodyOrRefuse,
  REQUEST_TOO_LARGE_ACTION,
  runEmulatedCall,
  withUnexpectedFailureReply,
  type EmulatorFault,
} from '../../../../sim/kit/index.js';

class CloudError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

interface Harness {
  base: string;
  knobs: EmulatorKnobs;
  applied: string[];
  logged: string[];
  server: Server;
}

function reply(
  res: ServerResponse,
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** A tiny emulator whose wire format is `{code}` JSON, built on the envelope. POST /<action> with body "throw" throws. */
async function start(maxBody = 64): Promise<Harness> {
  const knobs = new EmulatorKnobs({
    clock: new FakeClock(),
    seed: 1,
    classify: () => 'any',
    throttleFault: () => ({ status: 429, code: 'Throttled', message: 'slow down' }),
    serverFault: () => ({ status: 503, code: 'Unavailable', message: 'try again' }),
  });
  const applied: string[] = [];
  const logged: string[] = [];
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBodyOrRefuse(req, res, maxBody, () => reply(res, 413, { code: 'TooLarge' }), { knobs });
    if (body === undefined) return;
    const action = (req.url ?? '/').slice(1);
    await runEmulatedCall({
      knobs,
      action,
      res,
      apply: () => {
        if (body === 'api-error') throw new CloudError(400, 'BadThing');
        if (body === 'bug') throw new TypeError('emulator bug');
        applied.push(action);
        return { done: action, body };
      },
      reply: (result) => reply(res, 200, result),
      replyFault: (f: EmulatorFault) => reply(res, f.status, { code: f.code, kind: f.kind }),
      replyApiError: (err) => {
        if (!(err instanceof CloudError)) return false;
        reply(res, err.status, { code: err.code });
        return true;
      },
    });
  }
  const log: Logger = {
    error: (msg) => void logged.push(msg),
    info: () => undefined,
    debug: () => undefined,
    warn: () => undefined,
    child: () => log,
  };
  const server = createServer(
    withUnexpectedFailureReply(handle, {
      log,
      emulator: 'test',
      answer500: (res) => reply(res, 500, { code: 'Internal' }),
    }),
  );
  const port = await listenOnLoopback(server);
  return { base: `http://127.0.0.1:${port}`, knobs, applied, logged, server };
}

async function call(h: Harness, action: string, body = ''): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${h.base}/${action}`, { method: 'POST', body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('HTTP envelope (runEmulatedCall, readBodyOrRefuse, withUnexpectedFailureReply)', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await start();
  });
  afterEach(async () => {
    await closeServer(h.server);
  });

  it('applies the call and sends its result', async () => {
    expect(await call(h, 'Create', 'x')).to.deep.equal({ status: 200, json: { done: 'Create', body: 'x' } });
    expect(h.applied).to.deep.equal(['Create']);
    expect(h.knobs.counts('Create').total).to.equal(1);
  });

  it('answers an injected failure without applying the call', async () => {
    h.knobs.failNext('Create');
    expect(await call(h, 'Create')).to.deep.equal({ status: 503, json: { code: 'Unavailable', kind: 'injected' } });
    expect(h.applied).to.deep.equal([]);
  });

  it('answers throttling with the throttle fault', async () => {
    h.knobs.throttleNext('Create');
    expect((await call(h, 'Create')).json).to.deep.equal({ code: 'Throttled', kind: 'throttle' });
    expect(h.applied).to.deep.equal([]);
  });

  it('a lost reply as a server error still applies the call', async () => {
    h.knobs.loseNextReplies('Create', 1, 'server-error');
    expect(await call(h, 'Create')).to.deep.equal({ status: 503, json: { code: 'Unavailable', kind: 'lost-reply' } });
    expect(h.applied).to.deep.equal(['Create']);
  });

  it('a lost reply as a dropped connection applies the call and resets the socket', async () => {
    h.knobs.loseNextReplies('Create', 1, 'drop-connection');
    const err = await call(h, 'Create').then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).to.be.instanceOf(Error);
    expect(h.applied).to.deep.equal(['Create']);
  });

  it("answers the cloud's own API error and counts it as an error", async () => {
    expect(await call(h, 'Create', 'api-error')).to.deep.equal({ status: 400, json: { code: 'BadThing' } });
    expect(h.knobs.counts('Create').failed).to.equal(1);
  });

  it('answers an unexpected failure with the emulator 500, logs it, and counts it as an error', async () => {
    expect(await call(h, 'Create', 'bug')).to.deep.equal({ status: 500, json: { code: 'Internal' } });
    expect(h.logged).to.deep.equal(['test emulator: unexpected failure answering a request']);
    expect(h.knobs.counts('Create').failed).to.equal(1);
  });

  it('refuses an oversized body with 413 and closes that connection, then keeps serving', async () => {
    const big = await fetch(`${h.base}/Create`, { method: 'POST', body: 'y'.repeat(65) });
    expect(big.status).to.equal(413);
    expect(big.headers.get('connection')).to.equal('close');
    expect(await big.json()).to.deep.equal({ code: 'TooLarge' });
    expect(h.applied).to.deep.equal([]);
    expect((await call(h, 'Create', 'y'.repeat(64))).status).to.equal(200);
  });

  it('counts a body refused for its size as a failed call, under its action when the route names it', async () => {
    await fetch(`${h.base}/Create`, { method: 'POST', body: 'y'.repeat(65) });
    expect(h.knobs.counts(REQUEST_TOO_LARGE_ACTION)).to.include({ total: 1, failed: 1 });
    h.knobs.recordRefusedBody('CreateInstance');
    expect(h.knobs.counts('CreateInstance')).to.include({ total: 1, failed: 1 });
  });
});

describe('runEmulatedCall when its signal is aborted', () => {
  it('drops the connection instead of answering, and applies nothing', async () => {
    const clock = new FakeClock();
    const knobs = new EmulatorKnobs({
      clock,
      classify: () => 'any',
      throttleFault: () => ({ status: 429, code: 'T', message: 't' }),
      serverFault: () => ({ status: 503, code: 'S', message: 's' }),
    });
    knobs.setLatency(60_000);
    const stopping = new AbortController();
    let applied = false;
    let entered: () => void = () => undefined;
    const waiting = new Promise<void>((r) => (entered = r));
    const server = createServer((_req, res) => {
      entered();
      void runEmulatedCall({
        knobs,
        action: 'Slow',
        res,
        signal: stopping.signal,
        apply: () => {
          applied = true;
        },
        reply: () => res.end('done'),
        replyFault: () => res.end('fault'),
        replyApiError: () => false,
      });
    });
    const port = await listenOnLoopback(server);
    try {
      const outcome = fetch(`http://127.0.0.1:${port}/`).then(
        () => 'answered',
        () => 'connection lost',
      );
      await waiting;
      stopping.abort();
      expect(await outcome).to.equal('connection lost');
      expect(applied).to.equal(false);
    } finally {
      await closeServer(server);
    }
  });
});
