// The admission-webhook flags of the machineset-controller, as the machine-api-operator passes them (it
// passes none of them today and relies on the defaults: port 8443, certificates mounted at
// /etc/machine-api-operator/tls from the machine-api-operator-webhook-cert Secret).
import { InvalidArgumentError, Option, type Command } from 'commander';
import { DefaultWebhookCertDir, DefaultWebhookPort } from '../../lib/index.js';
import { goBoolArgument } from './go-bool.js';
import { intArg } from './int-argument.js';

export interface WebhookFlags {
  enabled: boolean;
  port: number;
  /** Interface to listen on; all interfaces when empty. */
  host: string;
  certDir: string;
}

function port(value: string): number {
  const n = intArg('--webhook-port', 1)(value);
  if (n > 65_535)
    throw new InvalidArgumentError(`--webhook-port must be a port number (1 to 65535), got ${JSON.stringify(value)}`);
  return n;
}

export function addWebhookFlags(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--webhook-enabled [bool]', 'Serve the Machine and MachineSet admission webhooks')
        .default(true)
        .argParser(goBoolArgument('--webhook-enabled')),
    )
    .addOption(
      new Option('--webhook-port <port>', 'Port of the admission webhook HTTPS server')
        .default(DefaultWebhookPort)
        .argParser(port),
    )
    .option(
      '--webhook-host <address>',
      'Address the webhook server listens on (e.g. 127.0.0.1 for a local run); all interfaces when empty',
      '',
    )
    .option(
      '--webhook-cert-dir <dir>',
      'Directory holding the webhook serving certificate (tls.crt, tls.key); reloaded when they change',
      DefaultWebhookCertDir,
    );
}

export function readWebhookFlags(opts: Record<string, unknown>): WebhookFlags {
  return {
    enabled: opts.webhookEnabled !== false,
    port: opts.webhookPort as number,
    host: (opts.webhookHost as string | undefined) ?? '',
    certDir: opts.webhookCertDir as string,
  };
}
