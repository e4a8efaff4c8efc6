// A real HTTPS admission webhook for the tests: its own self-signed certificate (valid for localhost,
// 127.0.0.1 and the DNS names asked for), the reviews it received, and a handler per test that answers
// each AdmissionReview (or misbehaves with the raw response).
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { generateServingCert } from '../../../../sim/apiserver/tls-cert.js';
import type { Json } from '../helpers.js';

export type ReviewHandler = (request: Json, res: ServerResponse) => Json | undefined | Promise<Json | undefined>;

export interface WebhookServer {
  /** https://127.0.0.1:<port> */
  url: string;
  /** 127.0.0.1:<port>, what a Service resolver maps to. */
  hostPort: string;
  /** Base64 of the certificate PEM: the caBundle that verifies this server. */
  caBundle: string;
  /** Every AdmissionReview request received, by path. */
  reviews: Array<{ path: string; request: Json }>;
  /** Answers reviews; return undefined after writing to res yourself. */
  handle: ReviewHandler;
  close(): Promise<void>;
}

export function allow(request: Json, extra: Json = {}): Json {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: request.uid, allowed: true, ...extra },
  };
}

export function deny(request: Json, status: Json, extra: Json = {}): Json {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: request.uid, allowed: false, status, ...extra },
  };
}

export function patchOf(request: Json, ops: Json[], extra: Json = {}): Json {
  return allow(request, {
    patchType: 'JSONPatch',
    patch: Buffer.from(JSON.stringify(ops)).toString('base64'),
    ...extra,
  });
}

export async function startWebhookServer(dnsNames: string[] = []): Promise<WebhookServer> {
  const cert = generateServingCert('test-webhook', Date.now(), { dnsNames });
  const sockets = new Set<Duplex>();
  const hook: WebhookServer = {
    url: '',
    hostPort: '',
    caBundle: Buffer.from(cert.certPem).toString('base64'),
    reviews: [],
    handle: (request) => allow(request),
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer({ key: cert.keyPem, cert: cert.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      hook.reviews.push({ path: req.url ?? '', request: review.request });
      Promise.resolve(hook.handle(review.request, res)).then(
        (answer) => {
          if (answer === undefined) return;
          const text = JSON.stringify(answer);
          res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
          res.end(text);
        },
        (err: unknown) => {
          res.writeHead(500);
          res.end(String(err));
        },
      );
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  hook.url = `https://127.0.0.1:${port}`;
  hook.hostPort = `127.0.0.1:${port}`;
  return hook;
}
