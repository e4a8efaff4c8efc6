// The typed failures of outbound cloud connections. Each names what to fix (the variable, the proxy, the CA
// sources) and never carries a proxy's credentials.

/** HTTPS_PROXY/HTTP_PROXY is not a usable proxy URL; `variable` names the setting. */
export class InvalidProxyUrlError extends Error {
  override readonly name = 'InvalidProxyUrlError';
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`${variable}: ${reason}`);
  }
}

/** The proxy refused or failed the CONNECT tunnel to a cloud endpoint. */
export class ProxyTunnelError extends Error {
  override readonly name = 'ProxyTunnelError';
  constructor(
    /** The proxy without credentials, e.g. "http://proxy.example.com:3128". */
    readonly proxy: string,
    /** "host:port" the tunnel was for. */
    readonly target: string,
    /** The proxy's HTTP status, when it answered. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    const why =
      status !== undefined
        ? `answered ${status}`
        : `failed: ${options?.cause instanceof Error ? options.cause.message : String(options?.cause)}`;
    super(`proxy ${proxy}: CONNECT ${target} ${why}`, options);
  }
}

/**
 * The server's certificate does not chain to a trusted CA. The message lists where the trusted CAs came from,
 * so whoever reads it knows which bundle lacks the server's CA.
 */
export class UntrustedServerCertificateError extends Error {
  override readonly name = 'UntrustedServerCertificateError';
  /**
   * A code of its own, not OpenSSL's: SDKs that see DEPTH_ZERO_SELF_SIGNED_CERT replace the message with advice
   * to switch verification off (IBM's), which would hide the CA sources this message names.
   */
  readonly code = 'UNTRUSTED_SERVER_CERTIFICATE';
  constructor(
    /** "host:port" of the server. */
    readonly server: string,
    /** OpenSSL's verification failure, e.g. SELF_SIGNED_CERT_IN_CHAIN. */
    readonly verifyError: string,
    /** Where the extra trusted CAs came from (file paths, ConfigMap keys); the system CAs are always trusted. */
    readonly trustSources: readonly string[],
    options?: { cause?: unknown },
  ) {
    const trusted =
      trustSources.length > 0
        ? `the system CAs and ${trustSources.join(', ')}`
        : 'the system CAs only (no extra CA bundle is configured)';
    super(
      `TLS to ${server}: the server certificate is not signed by a trusted CA (${verifyError}); trusted: ${trusted}`,
      options,
    );
  }
}
