// The HTTP plumbing every emulator wraps around a call: reading the body under a size limit, running the fault
// knobs around the call's effect (latency and injected failures before it, a lost reply after it), answering
// the cloud's own API errors, and a last-resort 500 for anything unexpected. The wire format stays the
// emulator's: it passes in how to answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../../lib/base/logger.js';
import { EmulatorFault } from './emulator-fault.js';
import type { EmulatorKnobs } from './emulator-knobs.js';
import { dropConnection } from './http-reply.js';

/** The body as text, or undefined when it exceeds `maxBytes` (the rest is read and discarded). */
export function readBodyWithinLimit(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
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

/**
 * Reads the body; when it is too large, answers with `refuse` (the emulator's 413) and closes the connection
 * once that reply is out, then resolves undefined. With `counted`, the refusal is counted on those knobs (under
 * the call's action when the route already names it), so tests see that the request reached the cloud.
 */
export async function readBodyOrRefuse(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  refuse: () => void,
  counted?: { knobs: EmulatorKnobs; action?: string },
): Promise<string | undefined> {
  const body = await readBodyWithinLimit(req, maxBytes);
  if (body !== undefined) return body;
  counted?.knobs.recordRefusedBody(counted.action);
  res.setHeader('connection', 'close');
  refuse();
  res.on('finish', () => req.socket.destroy());
  return undefined;
}

export interface EmulatedCall<T> {
  knobs: EmulatorKnobs;
  /** The knob action name (counters, matchers). */
  action: string;
  res: ServerResponse;
  /**
   * Aborted when no reply can matter any more (the emulator stops, the client went away): a latency wait
   * ends early and, whatever the call threw, the connection is dropped instead of answered.
   */
  signal?: AbortSignal;
  /** The call's effect; runs only when the knobs let the call through. */
  apply: () => T | Promise<T>;
  reply: (result: T) => void;
  /** Answers an injected fault: throttling or failure before the effect (kind throttle/injected) or a lost reply after it. */
  replyFault: (fault: EmulatorFault) => void;
  /** Answers the cloud's own API error and returns true; false for anything else, which is rethrown. */
  replyApiError: (err: unknown) => boolean;
}

/**
 * Runs one call through the knobs. Errors from `apply` (API errors and unexpected ones) are counted as
 * errors; injected faults are counted by the knobs themselves.
 */
export async function runEmulatedCall<T>(call: EmulatedCall<T>): Promise<void> {
  const { knobs, action, res, signal } = call;
  try {
    await knobs.before(action, signal);
    const result = await call.apply();
    const lost = knobs.afterEffect(action);
    if (lost?.mode === 'drop-connection') {
      dropConnection(res);
      return;
    }
    if (lost) {
      call.replyFault(lost.fault);
      return;
    }
    call.reply(result);
  } catch (err) {
    if (signal?.aborted) {
      if (!res.writableEnded) res.destroy();
      return;
    }
    if (err instanceof EmulatorFault) {
      call.replyFault(err);
      return;
    }
    knobs.recordError(action);
    if (!call.replyApiError(err)) throw err;
  }
}

/**
 * Adapts an async request handler for node:http: a failure it did not answer itself is logged and answered
 * with `answer500` (or the connection is dropped when a reply has already started).
 */
export function withUnexpectedFailureReply(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  o: { log?: Logger; emulator: string; answer500: (res: ServerResponse) => void },
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      o.log?.error(`${o.emulator} emulator: unexpected failure answering a request`, { error: String(err) });
      if (!res.headersSent) o.answer500(res);
      else res.destroy();
    });
  };
}
