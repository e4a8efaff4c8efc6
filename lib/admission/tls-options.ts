// TlsServerSettings → node:tls server options. Node takes the TLS 1.3 suites and the older cipher list in
// one `ciphers` string and disables a protocol whose part is empty; Go's crypto/tls (whose flags these are)
// only restricts TLS 1.2 and below with the cipher list. So the part not given keeps Node's defaults.
import { DEFAULT_CIPHERS, type SecureVersion } from 'node:tls';
import type { TlsServerSettings } from './tls-server-settings.js';

const defaults = DEFAULT_CIPHERS.split(':').filter(Boolean);
const defaultTls13 = defaults.filter((c) => c.startsWith('TLS_')).join(':');
const defaultLegacy = defaults.filter((c) => !c.startsWith('TLS_')).join(':');

export function tlsServerOptions(settings: TlsServerSettings): { minVersion: SecureVersion; ciphers: string } {
  const ciphers = [settings.tls13Suites ?? defaultTls13, settings.ciphers ?? defaultLegacy].filter(Boolean).join(':');
  return { minVersion: settings.minVersion, ciphers };
}
