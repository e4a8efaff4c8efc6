// The HTTPS server of the admission webhooks: the handler on --webhook-port with the certificate from
// --webhook-cert-dir (reloaded when it rotates) and the cluster's TLS profile. As a manager Runnable it runs
// on every replica, leader or not, since kube-apiserver calls whichever replica the Service picks.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../base/logger.js';
import type { Runnable } from '../runtime/types.js';
import type { AdmissionRequestHandler } from './admission-handler.js';
import { readCertificatePair, ServingCertWatcher } from './serving-cert-watcher.js';
import { tlsServerOptions } from './tls-options.js';
import type { TlsServerSettings } from './tls-server-settings.js';

export interface AdmissionServerOptions {
  /** Default all interfaces, as the reference listens; tests pass 127.0.0.1. */
  host?: string;
  port: number;
  /** Holds tls.crt and tls.key. */
  certDir: string;
  tls: TlsServerSettings;
  handler: AdmissionRequestHandler;
  logger?: Logger;
  /** How often the certificate files are re-read without a change event. */
  certPollIntervalMs?: number;
}

export interface RunningAdmissionServer {
  /** The bound port (useful with port 0). */
  readonly port: number;
  close(): Promise<void>;
}

/** Longer than kube-apiserver's 90 s idle connection reuse, so the client always lets a connection go first. */
export const WebhookServerIdleTimeoutMs = 120_000;

/** Starts serving; rejects with ServingCertificateError when the certificate cannot be read, or a listen error. */
export async function startAdmissionServer(o: AdmissionServerOptions): Promise<RunningAdmissionServer> {
  const pair = await readCertificatePair(o.certDir);
  const tlsOptions = tlsServerOptions(o.tls);
  const server: Server = createServer({ ...tlsOptions, ...pair }, o.handler);
  // A slow or stalled client must not hold a connection (and a body buffer) forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  // kube-apiserver's webhook client reuses an idle connection for up to 90 s. A server that closes it first
  // (Node's default is 5 s) races the next admission call on it, which kube-apiserver reports as "failed calling
  // webhook ... EOF" and, with failurePolicy Fail, refuses the write. Keep idle connections longer than the client.
  server.keepAliveTimeout = WebhookServerIdleTimeoutMs;
  const watcher = new ServingCertWatcher(
    {
      dir: o.certDir,
      logger: o.logger,
      pollIntervalMs: o.certPollIntervalMs,
      onChange: (next) => server.setSecureContext({ ...tlsOptions, ...next }),
    },
    pair,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  watcher.start();
  const port = (server.address() as AddressInfo).port;
  o.logger?.info('serving admission webhooks', { port, certDir: o.certDir });
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        watcher.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The server as a manager Runnable: started with the manager, on every replica, closed when it stops. */
export function admissionServerRunnable(
  o: AdmissionServerOptions,
  onStarted?: (s: RunningAdmissionServer) => void,
): Runnable {
  return {
    needLeaderElection: false,
    async start(signal: AbortSignal): Promise<void> {
      const running = await startAdmissionServer(o);
      onStarted?.(running);
      if (!signal.aborted)
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      await running.close();
    },
  };
}
