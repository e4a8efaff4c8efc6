// --tls-min-version and --tls-cipher-suites as the machine-api-operator passes them from the cluster's TLS
// security profile: Go's version names and IANA cipher-suite names. Node's TLS takes OpenSSL names, so each
// IANA name is translated here; a name with no translation is a start-up error, because silently serving
// with a different cipher set than the cluster's profile asks for would weaken (or break) every client.
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { SecureVersion } from 'node:tls';
import type { TlsServerSettings } from '../../lib/index.js';

export type { TlsServerSettings } from '../../lib/index.js';

const versions: Record<string, SecureVersion> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

/** The IANA names Go's crypto/tls knows, with their OpenSSL spelling. */
const ianaToOpenssl: Record<string, string> = {
  TLS_AES_128_GCM_SHA256: 'TLS_AES_128_GCM_SHA256',
  TLS_AES_256_GCM_SHA384: 'TLS_AES_256_GCM_SHA384',
  TLS_CHACHA20_POLY1305_SHA256: 'TLS_CHACHA20_POLY1305_SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
};

function minVersion(value: string): SecureVersion {
  const v = versions[value];
  if (!v)
    throw new InvalidArgumentError(
      `--tls-min-version must be one of ${Object.keys(versions).join(', ')}, got ${JSON.stringify(value)}`,
    );
  return v;
}

function cipherSuites(value: string): string[] {
  const names = value
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !Object.hasOwn(ianaToOpenssl, n));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      `--tls-cipher-suites: unknown IANA cipher suite name(s) ${unknown.map((n) => JSON.stringify(n)).join(', ')}`,
    );
  }
  return names;
}

export function addTlsFlags(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        '--tls-min-version <version>',
        'Minimum TLS version of the served endpoints (VersionTLS12, VersionTLS13)',
      )
        .default('TLSv1.2', 'VersionTLS12')
        .argParser(minVersion),
    )
    .addOption(
      new Option(
        '--tls-cipher-suites <names>',
        "Comma-separated IANA cipher suite names the served endpoints allow; Node's defaults when unset",
      ).argParser(cipherSuites),
    );
}

/** The parsed TLS flags of a command that had addTlsFlags applied, in the form node:tls takes. */
export function readTlsFlags(opts: Record<string, unknown>): TlsServerSettings {
  const names = opts.tlsCipherSuites as string[] | undefined;
  const settings: TlsServerSettings = { minVersion: (opts.tlsMinVersion as SecureVersion | undefined) ?? 'TLSv1.2' };
  if (!names || names.length === 0) return settings;
  const tls13 = names.filter((n) => !n.includes('_WITH_')).map((n) => ianaToOpenssl[n]!);
  const legacy = names.filter((n) => n.includes('_WITH_')).map((n) => ianaToOpenssl[n]!);
  if (tls13.length > 0) settings.tls13Suites = tls13.join(':');
  if (legacy.length > 0) settings.ciphers = [...new Set(legacy)].join(':');
  return settings;
}
