#!/usr/bin/env node
// termination-handler: the spot/preemption termination handler the machine-api-operator runs as the
// machine-api-termination-handler DaemonSet on interruptible Nodes (command /termination-handler, arguments
// --logtostderr=true --v=3 --node-name=$(NODE_NAME) --namespace=<ns> --poll-interval-seconds=5). It polls the
// instance metadata service of the Node's cloud and sets Terminating=True on the Node when a reclaim is
// announced; the machine-api-termination-handler MachineHealthCheck does the rest.
// Wiring only: flags and environment in, one call into lib out.
import { Command, Option } from 'commander';
import {
  createKubeClient,
  createLogger,
  loadKubeConfig,
  RealClock,
  runTerminationHandler,
  type Clock,
} from '../lib/index.js';
import { intArg } from './internal/int-argument.js';
import {
  addKlogFlags,
  addVersionFlag,
  readLoggingFlags,
  isMainModule,
  cloudProviders,
  metadataEndpointsFromEnv,
  noticeSources,
  runMain,
  type MetadataEndpoints,
  type SignalSource,
} from './internal/index.js';

export const COMPONENT = 'termination-handler';

export interface TerminationHandlerRun {
  /** Arguments after the program name. */
  args: string[];
  env: NodeJS.ProcessEnv;
  signals?: SignalSource;
  /** Default stderr. */
  logStream?: NodeJS.WritableStream;
  /** Where flag errors are printed; default stderr. */
  errorStream?: NodeJS.WritableStream;
  clock?: Clock;
}

/** The handler's flags; exported so the manifests' arguments can be checked against them. */
export function buildProgram(env: NodeJS.ProcessEnv): Command {
  return addKlogFlags(addVersionFlag(new Command(COMPONENT)))
    .description('Marks this Node Terminating when its cloud announces a spot or preemption reclaim of the instance.')
    .option('--node-name <name>', 'name of the node that the termination handler is running on (required)', '')
    .option(
      '--namespace <ns>',
      "namespace of the Machines (accepted for the operator's arguments; the handler only writes its Node)",
      '',
    )
    .addOption(
      new Option(
        '--poll-interval-seconds <n>',
        'interval in seconds at which the termination notice endpoint is checked',
      )
        .default(5)
        .argParser(intArg('--poll-interval-seconds', 1)),
    )
    .addOption(
      new Option('--kubeconfig <path>', 'path to a kubeconfig; in-cluster configuration when unset').default(
        env.KUBECONFIG || undefined,
      ),
    );
}

/**
 * Runs until SIGTERM/SIGINT and resolves with the exit code: 0 after a signal, 2 for bad flags, 1 when it
 * cannot start. Once the Node is marked (or on a cloud without notices) the process stays up, idle: a
 * DaemonSet restarts a container that exits, even with 0, and a handler that keeps exiting ends in
 * CrashLoopBackOff on exactly the Nodes whose reclaim is under way.
 */
export async function runTerminationHandlerBinary(run: TerminationHandlerRun): Promise<number> {
  const errors = run.errorStream ?? process.stderr;
  const program = buildProgram(run.env)
    .exitOverride()
    .configureOutput({ writeErr: (text) => errors.write(text), writeOut: (text) => errors.write(text) });
  try {
    program.parse(run.args, { from: 'user' });
  } catch (err) {
    const code = (err as { code?: string }).code;
    return code === 'commander.helpDisplayed' || code === 'commander.version' ? 0 : 2;
  }
  const o = program.opts<{
    nodeName: string;
    namespace: string;
    pollIntervalSeconds: number;
    kubeconfig?: string;
  }>();
  if (!o.nodeName) {
    errors.write(
      `${COMPONENT}: --node-name is required: the DaemonSet passes the Node the pod runs on (--node-name=$(NODE_NAME))\n`,
    );
    return 2;
  }
  let endpoints: MetadataEndpoints;
  try {
    endpoints = metadataEndpointsFromEnv(run.env, cloudProviders);
  } catch (err) {
    errors.write(`${COMPONENT}: ${(err as Error).message}\n`);
    return 1;
  }
  const logger = createLogger({
    ...readLoggingFlags(program.opts()),
    fields: { component: COMPONENT },
    stream: run.logStream,
  });
  const clock = run.clock ?? new RealClock();
  const client = createKubeClient({
    kubeConfig: loadKubeConfig({ kubeconfigPath: o.kubeconfig }),
    qps: 5,
    burst: 10,
    userAgent: COMPONENT,
    clock,
  });

  const stop = new AbortController();
  const signals = run.signals ?? process;
  let received = 0;
  let forced: ((code: number) => void) | undefined;
  const forcedExit = new Promise<number>((resolve) => (forced = resolve));
  const onSignal = (): void => {
    received++;
    if (received === 1) {
      logger.info('signal received; stopping');
      stop.abort(new Error('signal received'));
    } else {
      forced?.(1);
    }
  };
  signals.on('SIGTERM', onSignal);
  signals.on('SIGINT', onSignal);
  logger.info('starting', {
    node: o.nodeName,
    namespace: o.namespace || '(all)',
    pollIntervalSeconds: o.pollIntervalSeconds,
    metadataEndpoints: endpoints,
  });
  try {
    const work = (async () => {
      const outcome = await runTerminationHandler(
        {
          client,
          nodeName: o.nodeName,
          sources: noticeSources(cloudProviders, endpoints, o.pollIntervalSeconds),
          pollIntervalMs: o.pollIntervalSeconds * 1000,
          clock,
          logger,
        },
        stop.signal,
      );
      if (outcome !== 'stopped') {
        logger.info(
          outcome === 'marked'
            ? 'node marked; idle until stopped'
            : 'no termination notices on this cloud; idle until stopped',
        );
        await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
      }
      return 0;
    })();
    return await Promise.race([work, forcedExit]);
  } catch (err) {
    logger.error('termination handler failed', { error: err });
    return 1;
  } finally {
    signals.off('SIGTERM', onSignal);
    signals.off('SIGINT', onSignal);
    client.close();
  }
}

if (isMainModule(import.meta.url)) {
  runMain(COMPONENT, async () =>
    process.exit(await runTerminationHandlerBinary({ args: process.argv.slice(2), env: process.env })),
  );
}
