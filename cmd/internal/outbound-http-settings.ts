// The cloud clients' proxy and trusted CAs, from the environment the machine-api-operator gives every
// container (HTTP_PROXY, HTTPS_PROXY, NO_PROXY from the cluster Proxy, either case) and from the trusted CA
// bundle it mounts. Read here, once, at start; lib/cloud/outbound-http.ts applies them.
import { existsSync, readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { OutboundHttp, type TrustedCaBundle } from '../../lib/index.js';

/** Where the operator mounts the cluster's trusted CA bundle (the system CAs merged with the cluster Proxy's trustedCA). */
export const TRUSTED_CA_BUNDLE_PATH = '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem';

export class TrustedCaBundleError extends Error {
  override readonly name = 'TrustedCaBundleError';
}

export function addTrustedCaBundleFlag(program: Command): Command {
  return program.addOption(
    new Option(
      '--trusted-ca-bundle <path>',
      `PEM bundle of CAs the cloud clients trust besides the system CAs (default: ${TRUSTED_CA_BUNDLE_PATH} when present)`,
    ),
  );
}

/** The first non-empty of NAME and name, as Go's net/http reads proxy variables. */
function proxyVariable(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return env[name] || env[name.toLowerCase()] || undefined;
}

/** Reads a PEM bundle; an explicit path that cannot be read, or holds no certificate, is an error naming it. */
export function readCaBundle(path: string, flag: string): TrustedCaBundle {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new TrustedCaBundleError(`${flag} ${path}: cannot read the CA bundle (${code})`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new TrustedCaBundleError(`${flag} ${path}: holds no PEM certificate`);
  return { source: path, pem };
}

/**
 * The outbound settings: proxy variables from `env`, the CA bundle at `--trusted-ca-bundle` (or the operator's
 * mount when it exists), plus `extra` bundles (e.g. AWS's ca-bundle.pem of the cloud-provider config).
 */
export function outboundHttpFromEnv(
  env: NodeJS.ProcessEnv,
  trustedCaBundle: string | undefined,
  extra: TrustedCaBundle[] = [],
): OutboundHttp {
  const bundles: TrustedCaBundle[] = [];
  if (trustedCaBundle !== undefined) bundles.push(readCaBundle(trustedCaBundle, '--trusted-ca-bundle'));
  else if (existsSync(TRUSTED_CA_BUNDLE_PATH)) bundles.push(readCaBundle(TRUSTED_CA_BUNDLE_PATH, 'trusted CA bundle'));
  return new OutboundHttp({
    httpsProxy: proxyVariable(env, 'HTTPS_PROXY'),
    httpProxy: proxyVariable(env, 'HTTP_PROXY'),
    noProxy: proxyVariable(env, 'NO_PROXY'),
    trustedCaBundles: [...bundles, ...extra],
  });
}
