// A watch body: newline-delimited JSON events, split however the chunks fall.
import type { IncomingMessage } from 'node:http';
import type { KubeObject } from '../apis/meta.js';
import type { WatchEvent } from './kube-client.js';

/** Calls onEvent per line; resolves when the stream ends or the signal aborts, rejects on a broken line or socket error. */
export function readWatchStream<T extends KubeObject>(
  res: IncomingMessage,
  signal: AbortSignal,
  onEvent: (e: WatchEvent<T>) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let buffered = '';
    let settled = false;
    const finish = (err?: unknown): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (err !== undefined && !signal.aborted)
        reject(err instanceof Error ? err : new Error(typeof err === 'string' ? err : JSON.stringify(err)));
      else resolve();
    };
    const onAbort = (): void => {
      res.destroy();
      finish();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      if (settled) return;
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (!line) continue;
        let event: WatchEvent<T>;
        try {
          event = JSON.parse(line) as WatchEvent<T>;
        } catch (err) {
          res.destroy();
          finish(new Error(`watch: undecodable event line: ${line.slice(0, 200)}`, { cause: err }));
          return;
        }
        try {
          onEvent(event);
        } catch (err) {
          res.destroy();
          finish(err);
          return;
        }
        if (settled) return;
      }
    });
    res.on('end', () => finish());
    res.on('error', (err) => finish(new Error(`watch stream: ${err.message}`, { cause: err })));
    res.on('aborted', () => finish(new Error('watch stream aborted by the server')));
    res.on('close', () => finish());
    if (signal.aborted) onAbort();
  });
}
