#!/usr/bin/env node
// machine-api-local (`npm start`): the whole Machine API on this machine, with no cloud account and no cluster.
// A local API server, the cloud emulator, the kubelet simulator and every controller binary (in-process,
// through the binaries' own flag parsing and wiring); the samples applied; a live view on a terminal, one
// line per change otherwise. Ctrl-C or SIGTERM stops everything; the state directory keeps it all for next time.
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildLocalProgram, readLocalOptions, type LocalCliOptions } from './local/cli-options.js';
import { stampedChangeLines } from './local/change-log.js';
import { readClusterSnapshot, type ClusterSnapshot } from './local/cluster-snapshot.js';
import { startLocalEnvironment, type LocalEnvironment } from './local/environment.js';
import { renderLiveView } from './local/live-view.js';

const POLL_MS = 500;

function displayPath(p: string): string {
  const rel = relative(process.cwd(), p);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : p;
}

interface View {
  update(snap: ClusterSnapshot): void;
  close(): void;
}

function lineView(out: NodeJS.WriteStream): View {
  let prev: ClusterSnapshot | undefined;
  return {
    update(snap) {
      for (const line of stampedChangeLines(prev, snap, Date.now())) out.write(`${line}\n`);
      prev = snap;
    },
    close() {},
  };
}

function terminalView(out: NodeJS.WriteStream, env: LocalEnvironment, o: LocalCliOptions, hint: string): View {
  let last = '';
  let snap: ClusterSnapshot | undefined;
  const draw = (force = false) => {
    if (!snap) return;
    const lines = renderLiveView(snap, {
      width: out.columns || 80,
      height: out.rows || 24,
      nowMs: Date.now(),
      header: {
        provider: o.provider,
        apiServer: env.endpoints.apiServer,
        hint,
        footer: `Ctrl-C stops everything; state and logs are kept in ${displayPath(dirname(env.endpointsPath))}/`,
      },
    });
    const frame = lines.join('\n');
    if (frame === last && !force) return;
    last = frame;
    // Home, each line cleared to its end, then everything below cleared: no flicker, no scrollback spam.
    out.write(`\x1b[H${lines.map((l) => `${l}\x1b[K`).join('\n')}\x1b[J`);
  };
  const onResize = () => draw(true);
  out.write('\x1b[?1049h\x1b[?25l');
  out.on('resize', onResize);
  return {
    update(s) {
      snap = s;
      draw();
    },
    close() {
      out.off('resize', onResize);
      out.write('\x1b[?25h\x1b[?1049l');
    },
  };
}

export async function main(argv: string[]): Promise<void> {
  const program = buildLocalProgram().parse(argv);
  const o = readLocalOptions(program);
  const out = process.stdout;
  const tty = o.tty && out.isTTY === true;
  out.write(`machine-api-local: starting the ${o.provider} environment in ${displayPath(resolve(o.stateDir))} ...\n`);

  const env = await startLocalEnvironment({
    provider: o.provider,
    port: o.port,
    stateDir: o.stateDir,
    bootDelayMs: o.bootDelayMs,
    terminateDelayMs: o.terminateDelayMs,
    latencyMs: o.latencyMs,
    samples: o.samples,
    controllers: o.controllers,
    rbac: o.rbac,
    verbosity: o.v,
    pprof: o.pprof,
  });
  const hint = `KUBECONFIG=${displayPath(env.kubeconfigPath)} kubectl get machines -A`;
  const cloud = env.endpoints.cloud[o.provider];
  out.write(
    `machine-api-local: API server ${env.endpoints.apiServer}, ${o.provider} emulator ${cloud?.endpoint ?? ''} (${cloud?.region ?? ''})\n`,
  );
  out.write(
    `machine-api-local: controllers ${
      o.controllers === 'none'
        ? 'not started (--controllers none: see "binaries" in ' + displayPath(env.endpointsPath) + ')'
        : env.processes
          ? `${env.processes
              .status()
              .map((b) => `${b.name} (pid ${b.pid ?? '-'})`)
              .join(', ')}, each its own process`
          : env.binaries.map((b) => b.name).join(', ')
    }; logs in ${displayPath(join(dirname(env.endpointsPath), env.processes ? 'logs/' : 'controllers.log'))}\n`,
  );
  if (env.endpoints.serviceAccountKubeconfig) {
    out.write(
      `machine-api-local: RBAC on: the controllers run as their Deployment's ServiceAccount (kubeconfig ${displayPath(env.endpoints.serviceAccountKubeconfig)}), with the roles of manifests/rbac\n`,
    );
  }
  for (const [name, url] of Object.entries(env.endpoints.pprof ?? {}))
    out.write(`machine-api-local: ${name} profiles at ${url}/ (curl -o cpu.cpuprofile '${url}/profile?seconds=30')\n`);
  if (env.createdSamples.length) out.write(`machine-api-local: created ${env.createdSamples.join(', ')}\n`);
  out.write(`Try: ${hint}\n`);

  const view = tty ? terminalView(out, env, o, hint) : lineView(out);
  let polling = false;
  const poll = new AbortController();
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    readClusterSnapshot(env.client, { signal: poll.signal })
      .then((snap) => view.update(snap))
      .catch(() => undefined) // the next tick tries again; a stopping server is not news
      .finally(() => (polling = false));
  }, POLL_MS);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      process.stderr.write(`machine-api-local: second ${signal}; exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    clearInterval(timer);
    poll.abort();
    view.close();
    out.write(
      `machine-api-local: ${signal} received; stopping controllers, kubelet simulator, emulator and API server\n`,
    );
    env.stop().then(
      () => {
        out.write(
          `machine-api-local: stopped; everything is kept in ${displayPath(dirname(env.endpointsPath))}/ for the next start\n`,
        );
        process.exit(0);
      },
      (err: unknown) => {
        process.stderr.write(
          `machine-api-local: stopping failed: ${err instanceof Error ? err.message : String(err)}\n`,
        );
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // The SDK's Node-version notice would otherwise print on every start.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  main(process.argv).catch((err: unknown) => {
    process.stderr.write(`machine-api-local: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
