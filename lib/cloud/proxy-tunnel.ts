// Opens a CONNECT tunnel through an HTTP(S) proxy: the bytes that follow are the caller's own connection to
// the target (TLS to a cloud endpoint goes end to end, the proxy sees only the host name and port).
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { ProxyTunnelError } from './outbound-http-errors.js';

/** The proxy URL without its credentials, for messages and logs. */
export function proxyForDisplay(proxy: URL): string {
  return `${proxy.protocol}//${proxy.host}`;
}

/** "host:port", with brackets around an IPv6 address. */
export function authority(host: string, port: number): string {
  return `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}

export interface TunnelOptions {
  /** CAs to trust when the proxy itself speaks TLS (an https:// proxy). */
  ca?: string[];
  /** Gives up on a proxy that does not answer the CONNECT in time. */
  timeoutMs?: number;
}

export function openTunnel(proxy: URL, host: string, port: number, opts: TunnelOptions = {}): Promise<Socket> {
  const target = authority(host, port);
  const headers: Record<string, string> = { host: target };
  if (proxy.username !== '') {
    const user = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
    headers['proxy-authorization'] = `Basic ${Buffer.from(user, 'utf8').toString('base64')}`;
  }
  const secure = proxy.protocol === 'https:';
  const proxyHost = proxy.hostname.replace(/^\[|\]$/g, '');
  const proxyPort = proxy.port !== '' ? Number(proxy.port) : secure ? 443 : 80;
  const shown = proxyForDisplay(proxy);
  return new Promise<Socket>((resolve, reject) => {
    const common = {
      host: proxyHost,
      port: proxyPort,
      method: 'CONNECT',
      path: target,
      headers,
      agent: false as const,
      timeout: opts.timeoutMs,
    };
    const req = secure ? httpsRequest({ ...common, ca: opts.ca, servername: proxyHost }) : httpRequest(common);
    req.once('connect', (res, socket, head) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        reject(new ProxyTunnelError(shown, target, res.statusCode));
        return;
      }
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    req.once('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs ?? 0} ms`)));
    req.once('error', (err) => reject(new ProxyTunnelError(shown, target, undefined, { cause: err })));
    req.end();
  });
}
