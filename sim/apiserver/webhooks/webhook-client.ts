// The HTTPS call to one webhook, as kube-apiserver makes it: POST of the AdmissionReview to
// clientConfig.url, or to the Service's address (`https://<name>.<namespace>.svc:<port><path>`, here
// resolved to a loopback address by the control plane's resolver, never through DNS), with the server
// certificate verified against caBundle for that host name, `?timeout=<n>s`, and the call cut at
// timeoutSeconds. Whatever goes wrong is a WebhookCallError, which the failurePolicy then decides on.
// The reply is read up to a fixed size, so a huge or endless answer cannot exhaust memory.
import { request, type RequestOptions } from 'node:https';
import { isIP } from 'node:net';
import type { ServiceReference, WebhookClientConfig } from './configuration.js';

/** Largest webhook reply read: a patch of a maximum-size object (3 MiB) with room to spare. */
export const MaxWebhookReplyBytes = 6 * 1024 * 1024;

/** Where a Service webhook listens: `host:port` (or `https://host:port`) on loopback; undefined when the Service is unknown. */
export type WebhookServiceResolver = (service: { namespace: string; name: string; port: number }) => string | undefined;

/** The webhook could not be called, or its reply was unusable; failurePolicy Ignore lets the request through. */
export class WebhookCallError extends Error {
  override readonly name = 'WebhookCallError';
  constructor(
    readonly webhook: string,
    readonly reason: string,
  ) {
    super(`failed calling webhook "${webhook}": ${reason}`);
  }
}

interface Target {
  /** The URL kube-apiserver would show in its error messages. */
  displayUrl: string;
  host: string;
  port: number;
  path: string;
  /** The name the certificate must be valid for (and SNI), when it is not an IP address. */
  servername?: string;
}

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** "host:port", or a URL base "https://host:port". */
function splitHostPort(address: string): { host: string; port: number } | undefined {
  const base = address.startsWith('https://') ? address : `https://${address}`;
  const u = URL.canParse(base) ? new URL(base) : undefined;
  if (!u || u.pathname !== '/' || u.username !== '') return undefined;
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: u.port === '' ? 443 : Number(u.port) };
}

/** Where to send the review; a string reason when the webhook cannot be reached from here. */
export function resolveTarget(
  cc: WebhookClientConfig,
  timeoutSeconds: number,
  resolver: WebhookServiceResolver | undefined,
): Target | string {
  const timeout = `?timeout=${timeoutSeconds}s`;
  if (cc.url !== undefined) {
    const u = new URL(cc.url);
    const displayUrl = `${cc.url}${timeout}`;
    // All traffic stays on this machine: a webhook URL elsewhere is never contacted.
    if (!isLoopback(u.hostname))
      return `failed to call webhook: Post "${displayUrl}": the local control plane calls loopback addresses only`;
    const host = u.hostname.replace(/^\[|\]$/g, '');
    return {
      displayUrl,
      host,
      port: u.port === '' ? 443 : Number(u.port),
      path: `${u.pathname}${timeout}`,
      servername: isIP(host) ? undefined : host,
    };
  }
  const svc = cc.service as Required<Pick<ServiceReference, 'namespace' | 'name'>> & ServiceReference;
  const port = svc.port ?? 443;
  const servername = `${svc.name}.${svc.namespace}.svc`;
  const path = svc.path ?? '';
  const displayUrl = `https://${servername}:${port}${path}${timeout}`;
  const resolved = resolver?.({ namespace: svc.namespace, name: svc.name, port });
  const hp = resolved === undefined ? undefined : splitHostPort(resolved);
  if (!hp)
    return `failed to call webhook: Post "${displayUrl}": service "${svc.namespace}/${svc.name}" has no address known to the local control plane (webhookServiceResolver)`;
  if (!isLoopback(hp.host))
    return `failed to call webhook: Post "${displayUrl}": the local control plane calls loopback addresses only`;
  return { displayUrl, host: hp.host, port: hp.port, path: `${path === '' ? '/' : path}${timeout}`, servername };
}

/** caBundle is base64 of PEM; an empty or absent bundle leaves Node's default trust store. */
function caFrom(cc: WebhookClientConfig): Buffer | undefined {
  if (!cc.caBundle) return undefined;
  return Buffer.from(cc.caBundle, 'base64');
}

/**
 * POSTs `body` and resolves with the reply's text. Rejects with WebhookCallError on connection and TLS
 * failures, the timeout, a non-2xx status or a reply over maxReplyBytes.
 */
export function postReview(
  webhook: string,
  cc: WebhookClientConfig,
  target: Target,
  body: string,
  timeoutSeconds: number,
  maxReplyBytes = MaxWebhookReplyBytes,
): Promise<string> {
  const fail = (why: string) =>
    new WebhookCallError(webhook, `failed to call webhook: Post "${target.displayUrl}": ${why}`);
  return new Promise((resolve, reject) => {
    let settled = false;
    // Set once the request exists; done() may run before that (a request that cannot even be built).
    const deadline: { timer?: ReturnType<typeof setTimeout> } = {};
    const done = (err: Error | undefined, text?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline.timer);
      if (err) reject(err);
      else resolve(text ?? '');
    };
    const options: RequestOptions = {
      host: target.host,
      port: target.port,
      path: target.path,
      method: 'POST',
      agent: false,
      ca: caFrom(cc),
      servername: target.servername,
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        'Content-Length': Buffer.byteLength(body),
      },
    };
    let req: ReturnType<typeof request>;
    try {
      req = request(options, onResponse);
    } catch (err) {
      // A caBundle Node cannot use, for instance: the call failed; failurePolicy decides.
      done(fail((err as Error).message));
      return;
    }
    function onResponse(res: import('node:http').IncomingMessage): void {
      const declared = Number(res.headers['content-length'] ?? '0');
      if (declared > maxReplyBytes) {
        req.destroy();
        done(fail(`the webhook's reply is larger than ${maxReplyBytes} bytes`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxReplyBytes) {
          req.destroy();
          done(fail(`the webhook's reply is larger than ${maxReplyBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', (err) => done(fail(err.message)));
      res.on('end', () => {
        const code = res.statusCode ?? 0;
        if (code < 200 || code > 299) done(fail(`the server responded with HTTP status ${code}`));
        else done(undefined, Buffer.concat(chunks).toString('utf8'));
      });
    }
    // Go reports an expired deadline as "context deadline exceeded"; kube's message carries it.
    deadline.timer = setTimeout(() => {
      req.destroy();
      done(fail('context deadline exceeded'));
    }, timeoutSeconds * 1000);
    req.on('error', (err: NodeJS.ErrnoException) => done(fail(tlsReason(err))));
    req.end(body);
  });
}

/** Node's TLS verification failures, named as the reason a webhook's certificate was refused. */
function tlsReason(err: NodeJS.ErrnoException): string {
  const code = err.code ?? '';
  if (
    code === 'DEPTH_ZERO_SELF_SIGNED_CERT' ||
    code === 'SELF_SIGNED_CERT_IN_CHAIN' ||
    code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' ||
    code === 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY'
  ) {
    return `tls: failed to verify certificate: x509: certificate signed by unknown authority (${err.message})`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `tls: failed to verify certificate: x509: certificate is not valid for this host (${err.message})`;
  return err.message;
}
