// The TLS settings of a served endpoint in the form node:tls takes, as cmd/ reads them from the
// --tls-min-version and --tls-cipher-suites flags.
import type { SecureVersion } from 'node:tls';

export interface TlsServerSettings {
  minVersion: SecureVersion;
  /** OpenSSL cipher list for TLS 1.2 and below; undefined keeps Node's defaults. */
  ciphers?: string;
  /** TLS 1.3 suites (OpenSSL `ciphersuites`); undefined keeps Node's defaults. */
  tls13Suites?: string;
}
