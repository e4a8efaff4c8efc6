// Shared set-up for the control-plane tests: a server with the fixture CRDs, clients over
// @kubernetes/client-node, and a raw HTTPS helper for what the typed clients cannot send.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from '../../../sim/apiserver/index.js';

// API responses in tests are untyped JSON; one alias keeps that explicit.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export const fixtureCrds = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'crds');

export interface Env {
  cp: ControlPlane;
  kc: k8s.KubeConfig;
  core: k8s.CoreV1Api;
  custom: k8s.CustomObjectsApi;
  coordination: k8s.CoordinationV1Api;
  policy: k8s.PolicyV1Api;
  apiext: k8s.ApiextensionsV1Api;
}

export async function startEnv(opts: ControlPlaneOptions = {}): Promise<Env> {
  const cp = await startControlPlane({ crdDirs: [fixtureCrds], ...opts });
  const kc = new k8s.KubeConfig();
  kc.loadFromString(cp.kubeconfig);
  return {
    cp,
    kc,
    core: kc.makeApiClient(k8s.CoreV1Api),
    custom: kc.makeApiClient(k8s.CustomObjectsApi),
    coordination: kc.makeApiClient(k8s.CoordinationV1Api),
    policy: kc.makeApiClient(k8s.PolicyV1Api),
    apiext: kc.makeApiClient(k8s.ApiextensionsV1Api),
  };
}

export const W = { group: 'test.envtest.io', version: 'v1', plural: 'widgets' } as const;

export function widget(
  name: string,
  spec: Record<string, unknown> = { size: 'small' },
  extra: Record<string, unknown> = {},
) {
  return { apiVersion: 'test.envtest.io/v1', kind: 'Widget', metadata: { name, ...extra }, spec };
}

export const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
export const jsonPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);
export const strategic = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);
export const apply = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);

export async function createNamespace(env: Env, name: string): Promise<void> {
  await env.core.createNamespace({ body: { metadata: { name } } });
}

/** The HTTP status and parsed Status body of a rejected client-node call. */
export async function failure(p: Promise<unknown>): Promise<{ code: number; body: Record<string, Json> }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof k8s.ApiException) {
      const raw = err.body as unknown;
      return {
        code: err.code,
        body: typeof raw === 'string' ? (JSON.parse(raw) as Record<string, Json>) : (raw as Record<string, Json>),
      };
    }
    throw err;
  }
  throw new Error('expected the call to fail');
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): Json;
}

/** One request to the control plane over plain HTTP, or over HTTPS (trusting its certificate) with tls. */
export function raw(
  cp: ControlPlane,
  method: string,
  path: string,
  opts: { body?: string | Buffer; headers?: Record<string, string>; token?: string | null; tls?: boolean } = {},
): Promise<RawResponse> {
  const url = new URL(path, opts.tls ? cp.httpsUrl : cp.url);
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token !== null) headers.authorization = `Bearer ${opts.token ?? cp.token}`;
  if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));
  return new Promise((resolve, reject) => {
    const request = opts.tls ? httpsRequest : httpRequest;
    const req = request(url, { method, headers, ...(opts.tls ? { ca: cp.caCert } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** Polls until fn returns a truthy value (bounded; for outcomes of the server's background work). */
export async function eventually<T>(fn: () => Promise<T> | T, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
