// The webhook's serving certificate, reloaded when its files change. The service CA rotates the Secret
// behind --webhook-cert-dir; kubelet then swaps the mounted files (an atomic symlink switch). The watcher
// notices through a directory watch and, as a fallback that works on every filesystem, a periodic re-read;
// a pair that does not load (a half-written rotation, a key that does not match) is logged and the last
// good pair kept, to be retried on the next change.
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { Logger } from '../base/logger.js';

export const TlsCertFile = 'tls.crt';
export const TlsKeyFile = 'tls.key';

export interface CertificatePair {
  cert: string;
  key: string;
}

export class ServingCertificateError extends Error {
  override readonly name = 'ServingCertificateError';
}

/** Reads tls.crt and tls.key from `dir` and checks that they load together; throws ServingCertificateError naming the file. */
export async function readCertificatePair(dir: string): Promise<CertificatePair> {
  const read = async (file: string): Promise<string> => {
    try {
      return await readFile(join(dir, file), 'utf8');
    } catch (err) {
      throw new ServingCertificateError(
        `cannot read ${join(dir, file)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  };
  // One after the other, so that when both are missing the error always names the certificate.
  const cert = await read(TlsCertFile);
  const key = await read(TlsKeyFile);
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    throw new ServingCertificateError(
      `${join(dir, TlsCertFile)} and ${join(dir, TlsKeyFile)} do not form a usable certificate and key: ${(err as Error).message}`,
    );
  }
  return { cert, key };
}

export interface ServingCertWatcherOptions {
  dir: string;
  /** Called with each new pair that loads. */
  onChange: (pair: CertificatePair) => void;
  logger?: Logger;
  /** How often the files are re-read even without a watch event. Default 10 s. */
  pollIntervalMs?: number;
}

export class ServingCertWatcher {
  private watcher?: FSWatcher;
  private timer?: NodeJS.Timeout;
  private debounce?: NodeJS.Timeout;
  private checking = false;

  constructor(
    private readonly o: ServingCertWatcherOptions,
    private current: CertificatePair,
  ) {}

  start(): void {
    try {
      this.watcher = watch(this.o.dir, () => this.schedule());
      this.watcher.on('error', () => undefined);
    } catch (err) {
      this.o.logger?.info('cannot watch the certificate directory; relying on periodic re-reads', {
        dir: this.o.dir,
        error: (err as Error).message,
      });
    }
    this.timer = setInterval(() => void this.check(), this.o.pollIntervalMs ?? 10_000);
    this.timer.unref();
  }

  stop(): void {
    this.watcher?.close();
    clearInterval(this.timer);
    clearTimeout(this.debounce);
  }

  private schedule(): void {
    clearTimeout(this.debounce);
    // Both files change in one rotation; wait until the burst of events has passed.
    this.debounce = setTimeout(() => void this.check(), 100);
    this.debounce.unref();
  }

  private async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const pair = await readCertificatePair(this.o.dir);
      if (pair.cert === this.current.cert && pair.key === this.current.key) return;
      this.current = pair;
      this.o.onChange(pair);
      this.o.logger?.info('serving certificate reloaded', { dir: this.o.dir });
    } catch (err) {
      this.o.logger?.info('serving certificate not reloaded; keeping the previous one', {
        error: (err as Error).message,
      });
    } finally {
      this.checking = false;
    }
  }
}
