// What a request handler gets and returns, independent of node:http.
import type { RenderContext } from '../render.js';
import type { VpcState } from '../vpc-state.js';

export interface HandlerRequest {
  st: VpcState;
  /** The path parameters of the route, e.g. { id }. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body (POST). */
  body: unknown;
  render: RenderContext;
}

export interface HandlerReply {
  status: number;
  body?: unknown;
}

export type Handler = (req: HandlerRequest) => HandlerReply;

export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path template below the service root, e.g. "/instances/{id}". */
  path: string;
  /** The knob and call-counter name, after the Go SDK method, e.g. "CreateInstance". */
  action: string;
  handler: Handler;
}

export const ok = (body: unknown): HandlerReply => ({ status: 200, body });
