#!/usr/bin/env node
// machine-api-envtest: runs the local control plane until SIGTERM/SIGINT. Writes the kubeconfig
// when ready and prints the server URL on stdout (one line), so scripts can wait for it.
import { Command, InvalidArgumentError } from 'commander';
import { startControlPlane } from '../sim/apiserver/index.js';
import { envtestMetrics, parseLoopbackAddress } from './internal/envtest-metrics.js';
import { versionLine } from './internal/version.js';

function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('--port must be an integer from 0 to 65535');
  return n;
}

function parseBytes(v: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError('--watch-history-bytes must be a positive integer');
  return n;
}

function collect(v: string, prev: string[] | undefined): string[] {
  return [...(prev ?? []), v];
}

/** --webhook-service namespace/name[:port]=host:port, repeatable: where a webhook Service listens. */
function collectService(v: string, prev: Record<string, string> | undefined): Record<string, string> {
  const eq = v.indexOf('=');
  const key = eq < 0 ? '' : v.slice(0, eq);
  const target = eq < 0 ? '' : v.slice(eq + 1);
  if (
    !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9]*[a-z0-9])?(:\d{1,5})?$/.test(key) ||
    !/^[^\s/]+:\d{1,5}$/.test(target)
  ) {
    throw new InvalidArgumentError(
      `--webhook-service must be namespace/name[:port]=host:port, got ${JSON.stringify(v)}`,
    );
  }
  return { ...(prev ?? {}), [key]: target };
}

async function main(): Promise<void> {
  const program = new Command()
    .name('machine-api-envtest')
    .description('A local Kubernetes API server for the Machine API: discovery, built-in kinds, CRDs, watch, GC.')
    .version(versionLine('machine-api-envtest'), '--version', 'print version and exit')
    .option('--port <port>', 'port on 127.0.0.1 (0 picks a free one)', parsePort, 0)
    .requiredOption('--kubeconfig <file>', 'write a kubeconfig for the server here (mode 0600)')
    .option(
      '--data-dir <dir>',
      'keep objects across restarts in this directory (every write is durable before it is acknowledged)',
    )
    .option(
      '--watch-history-bytes <n>',
      'bytes of change events kept for resuming watches (default 268435456); older positions get 410 Gone',
      parseBytes,
    )
    .option('--crds <dir>', 'directory of CRD manifests (repeatable; default <repo>/manifests/crds)', collect)
    .option('--token <token>', 'bearer token clients must send (default: random; prefer MACHINE_API_ENVTEST_TOKEN)')
    .option(
      '--webhook-service <ns/name[:port]=host:port>',
      'where an admission webhook Service listens on loopback (repeatable)',
      collectService,
    )
    .option(
      '--metrics-bind-address <addr>',
      'serve Prometheus /metrics (process figures, requests per client) on this loopback host:port, behind the token',
      (v: string) => {
        try {
          parseLoopbackAddress(v);
        } catch (err) {
          throw new InvalidArgumentError((err as Error).message);
        }
        return v;
      },
    )
    .parse(process.argv);
  const o = program.opts<{
    port: number;
    kubeconfig: string;
    dataDir?: string;
    watchHistoryBytes?: number;
    crds?: string[];
    token?: string;
    webhookService?: Record<string, string>;
    metricsBindAddress?: string;
  }>();
  const metrics = o.metricsBindAddress === undefined ? undefined : envtestMetrics();
  const cp = await startControlPlane({
    port: o.port,
    kubeconfigPath: o.kubeconfig,
    dataDir: o.dataDir,
    watchHistoryBytes: o.watchHistoryBytes,
    onStorageWarning: (message) => process.stderr.write(`machine-api-envtest: ${message}\n`),
    crdDirs: o.crds,
    token: o.token ?? process.env.MACHINE_API_ENVTEST_TOKEN,
    onRequest: metrics?.onRequest,
    webhookServiceResolver: o.webhookService,
    onWebhookFailedOpen: (_webhook, message) => process.stderr.write(`machine-api-envtest: failing open: ${message}\n`),
  });
  if (metrics && o.metricsBindAddress !== undefined) await metrics.listen(o.metricsBindAddress, cp.token);
  process.stdout.write(`${cp.url}\n`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    Promise.all([cp.stop(), metrics?.close()]).then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(
          `machine-api-envtest: stopping failed: ${err instanceof Error ? err.message : String(err)}\n`,
        );
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`machine-api-envtest: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
