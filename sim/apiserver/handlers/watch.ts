// GET ...?watch=true: newline-delimited JSON events. Starts from the current state (resourceVersion ""
// or "0": synthetic ADDED events), or resumes from a resourceVersion out of the history ring (410 Gone
// when that is older than the kept history, or newer than any the server has shown: a history lost
// with a data directory must make clients re-list, never leave a silent gap). Headers are flushed at once
// so that clients' fetch() resolves; the client going away is seen on the response's 'close'. Like every
// reply, the stream shows nothing that is not yet durable: its first lines wait for the commit gate, later
// events reach it only once durable, and bookmarks carry the durable resourceVersion.
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as E from '../errors.js';
import { boolQueryParam } from '../query-params.js';
import type { Encoder } from '../encoding.js';
import { apiVersionFor, storageKeyOf, type ResourceType } from '../resource-type.js';
import type { ObjectFilter } from '../selectors.js';
import type { CommitGate } from '../storage/commit-gate.js';
import type { Store } from '../storage/store.js';
import type { StoreEvent } from '../storage/store-event.js';
import { eventLine, translate, type Watcher, type WatchHub } from '../watch/watch-hub.js';

export interface WatchDeps {
  store: Store;
  hub: WatchHub;
  bookmarkIntervalMs: number;
  /** A watcher whose unsent output grows beyond this is too slow: it gets a 410 and must re-list. */
  maxBufferedBytes: number;
  commits: CommitGate;
}

export interface WatchRequest {
  type: ResourceType;
  version: string;
  namespace: string | undefined;
  filter: ObjectFilter | undefined;
  encoder: Encoder;
  query: URLSearchParams;
}

export function goneStatus(message: string): Record<string, unknown> {
  return E.gone(message).toStatus();
}

function parseRv(s: string): number {
  if (!/^\d+$/.test(s)) throw E.badRequest(`invalid resource version: ${JSON.stringify(s)}`);
  return Number(s);
}

export function serveWatch(_req: IncomingMessage, res: ServerResponse, w: WatchRequest, deps: WatchDeps): void {
  const { store, hub } = deps;
  const typeKey = storageKeyOf(w.type);
  const q = w.query;
  const rvParam = q.get('resourceVersion') ?? '';
  const sendInitial = boolQueryParam(q, 'sendInitialEvents') === true;
  const bookmarks = boolQueryParam(q, 'allowWatchBookmarks') === true;
  const timeoutParam = q.get('timeoutSeconds');
  // kube-apiserver closes long watches after a random 30-60 minutes unless the client asks for less.
  const timeoutMs =
    timeoutParam !== null && /^\d+$/.test(timeoutParam) && Number(timeoutParam) > 0
      ? Number(timeoutParam) * 1000
      : (1800 + Math.random() * 1800) * 1000;

  let replay: StoreEvent[] | undefined;
  const fromCurrentState = rvParam === '' || rvParam === '0' || sendInitial;
  if (!fromCurrentState) {
    const rv = parseRv(rvParam);
    if (rv > deps.commits.durableRv()) {
      throw E.gone(
        `too large resource version: ${rv}, the server's is ${deps.commits.durableRv()} (its history was lost); list again`,
      );
    }
    replay = store.eventsSince(typeKey, rv);
    if (!replay) {
      throw E.gone(`too old resource version: ${rv} (${store.oldestResumable(typeKey)})`);
    }
  }

  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  res.flushHeaders();

  // The stream starts with everything up to here; bookmarks never go below it (nor above what is durable).
  const startRv = store.currentRv();
  let closed = false;
  /** The stream's first lines are durable and may go out; until then it is corked and an end waits. */
  let ready = false;
  let endWhenReady = false;
  const timers: { timeout?: NodeJS.Timeout; bookmark?: NodeJS.Timeout } = {};
  const bookmarkLine = (annotations?: Record<string, string>) =>
    `${JSON.stringify({
      type: 'BOOKMARK',
      object: {
        kind: w.type.kind,
        apiVersion: apiVersionFor(w.type.group, w.version),
        metadata: {
          resourceVersion: String(Math.max(startRv, deps.commits.durableRv())),
          ...(annotations ? { annotations } : {}),
        },
      },
    })}\n`;

  const watcher: Watcher = {
    typeKey,
    sinceRv: startRv,
    namespace: w.namespace,
    filter: w.filter,
    encoder: w.encoder,
    deliver(line) {
      if (closed) return;
      if (res.writableLength > deps.maxBufferedBytes) {
        watcher.close(goneStatus('the watch fell too far behind; resume from a newer resource version'));
        return;
      }
      res.write(line);
    },
    close(errorStatus) {
      if (closed) return;
      if (errorStatus) res.write(`${JSON.stringify({ type: 'ERROR', object: errorStatus })}\n`);
      cleanup();
      if (ready) res.end();
      else endWhenReady = true;
    },
  };

  function cleanup(): void {
    if (closed) return;
    closed = true;
    clearTimeout(timers.timeout);
    clearTimeout(timers.bookmark);
    hub.remove(watcher);
  }
  res.on('close', cleanup);
  res.on('error', cleanup);

  res.cork();
  if (fromCurrentState) {
    const objs = store.list(typeKey, w.namespace);
    for (const obj of objs) {
      if (w.filter && !w.filter(obj)) continue;
      res.write(`${JSON.stringify({ type: 'ADDED', object: w.encoder.encode(obj) })}\n`);
    }
    if (sendInitial && bookmarks) res.write(bookmarkLine({ 'k8s.io/initial-events-end': 'true' }));
  } else {
    for (const ev of replay ?? []) {
      const t = translate(watcher, ev);
      if (t) res.write(eventLine(ev, t, w.encoder));
    }
  }
  hub.add(watcher);
  deps.commits.durable(startRv).then(
    () => {
      ready = true;
      res.uncork();
      if (endWhenReady) res.end();
    },
    () => {
      cleanup();
      res.destroy();
    },
  );

  timers.timeout = setTimeout(() => {
    if (bookmarks && !closed) res.write(bookmarkLine());
    watcher.close();
  }, timeoutMs);
  if (bookmarks) {
    const tick = () => {
      if (closed) return;
      res.write(bookmarkLine());
      timers.bookmark = setTimeout(tick, deps.bookmarkIntervalMs);
    };
    timers.bookmark = setTimeout(tick, deps.bookmarkIntervalMs);
  }
}
