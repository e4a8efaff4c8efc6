// The HTTP side of the webhooks: a (req, res) handler that serves the four paths, reads a bounded body,
// decodes the AdmissionReview, runs the webhook and writes the AdmissionReview answer, always with HTTP 200
// as controller-runtime does (kube-apiserver then acts on allowed=false instead of on its failurePolicy).
// Mount it on any HTTPS server: the machineset-controller's, or the local control plane's in `npm start`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import type { Logger } from '../base/logger.js';
import { admissionMetrics } from './admission-metrics.js';
import { erroredResponse, reviewOf } from './admission-response.js';
import {
  AdmissionDecodeError,
  checkContentType,
  decodeAdmissionReview,
  MaxAdmissionRequestBytes,
  type AdmissionRequest,
  type AdmissionResponse,
} from './admission-review.js';
import type { MachineAdmission } from './machine-admission.js';
import {
  mutateMachineAdmission,
  mutateMachineSetAdmission,
  validateMachineAdmission,
  validateMachineSetAdmission,
  type MachineWebhookOptions,
} from './machine-webhooks.js';
import {
  MachineMutatingWebhookPath,
  MachineSetMutatingWebhookPath,
  MachineSetValidatingWebhookPath,
  MachineValidatingWebhookPath,
} from './webhook-paths.js';

export type AdmissionRequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface AdmissionHandlerOptions extends MachineWebhookOptions {
  /** Instead of `plugin`: every plug-in this build has; the one for infrastructure.platformType serves. */
  plugins?: readonly MachineAdmission[];
  /** Where the admission metrics are registered (the manager's registry, served on its /metrics). */
  metrics?: Registry;
  logger?: Logger;
}

type Webhook = (req: AdmissionRequest, o: MachineWebhookOptions) => AdmissionResponse | Promise<AdmissionResponse>;

const webhooks: ReadonlyMap<string, Webhook> = new Map<string, Webhook>([
  [MachineMutatingWebhookPath, mutateMachineAdmission],
  [MachineValidatingWebhookPath, validateMachineAdmission],
  [MachineSetMutatingWebhookPath, mutateMachineSetAdmission],
  [MachineSetValidatingWebhookPath, validateMachineSetAdmission],
]);

/** The webhook paths this handler serves. */
export const admissionWebhookPaths: readonly string[] = [...webhooks.keys()];

class BodyTooLargeError extends Error {}

/** Reads at most `limit` bytes; a longer body is refused as soon as it passes the limit, not buffered whole. */
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function createAdmissionRequestHandler(options: AdmissionHandlerOptions): AdmissionRequestHandler {
  const opts = {
    ...options,
    plugin: options.plugin ?? options.plugins?.find((p) => p.platform === options.infrastructure.platformType),
  };
  const metrics = opts.metrics ? admissionMetrics(opts.metrics) : undefined;
  return (req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    const webhook = webhooks.get(path);
    if (!webhook) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`no admission webhook at ${path.slice(0, 200)}\n`);
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'POST' }).end('admission webhooks take POST\n');
      return;
    }
    const started = process.hrtime.bigint();
    metrics?.inFlight.inc({ webhook: path });
    void serve(req, path, webhook, opts)
      .then((response) => {
        const body = JSON.stringify(reviewOf(response));
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
        if (metrics) {
          metrics.requests.inc({ webhook: path, code: '200' });
          if (!response.allowed) metrics.denials.inc({ webhook: path });
        }
      })
      .catch((err: unknown) => {
        opts.logger?.error('admission webhook failed', {
          webhook: path,
          error: err instanceof Error ? err.message : String(err),
        });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error\n');
        metrics?.requests.inc({ webhook: path, code: '500' });
      })
      .finally(() => {
        metrics?.inFlight.dec({ webhook: path });
        metrics?.latency.observe({ webhook: path }, Number(process.hrtime.bigint() - started) / 1e9);
      });
  };
}

async function serve(
  req: IncomingMessage,
  path: string,
  webhook: Webhook,
  opts: AdmissionHandlerOptions,
): Promise<AdmissionResponse> {
  let request: AdmissionRequest;
  try {
    checkContentType(req.headers['content-type']);
    let body: string;
    try {
      body = await readBody(req, MaxAdmissionRequestBytes);
    } catch (err) {
      if (err instanceof BodyTooLargeError)
        throw new AdmissionDecodeError(413, `request entity is too large; limit is ${MaxAdmissionRequestBytes} bytes`);
      throw err;
    }
    request = decodeAdmissionReview(body);
  } catch (err) {
    if (err instanceof AdmissionDecodeError) {
      opts.logger?.debug('undecodable admission request', { webhook: path, code: err.code, reason: err.message }, 2);
      if (req.readableEnded === false) req.resume();
      return erroredResponse(err.uid, err.code, err.message);
    }
    throw err;
  }
  const response = await webhook(request, opts);
  opts.logger?.debug(
    'admission',
    {
      webhook: path,
      operation: request.operation,
      name: request.name,
      namespace: request.namespace,
      allowed: response.allowed,
    },
    3,
  );
  return response;
}
