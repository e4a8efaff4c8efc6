// POST of a review kind: who the caller is (SelfSubjectReview) and what it, or another subject, may do (the
// access and rules reviews), answered and never stored, as kube-apiserver does. The answers come from the
// authorizer that decides every request, so `kubectl auth can-i` tells the truth about what a request would get.
import type { RequestAttributes } from '../authz/attributes.js';
import type { UserInfo } from '../authz/user.js';
import * as E from '../errors.js';
import { isPlainObject } from '../json.js';
import { readObjectBody, reply, type HandlerContext } from './context.js';

export async function handleReview(ctx: HandlerContext): Promise<void> {
  if (ctx.req.method !== 'POST' || ctx.name !== undefined || ctx.subresource !== undefined) throw E.methodNotAllowed();
  if (ctx.type.namespaced && !ctx.namespace) throw E.notFoundPath();
  const body = await readObjectBody(ctx);
  if (!isPlainObject(body)) throw E.badRequest(`the body of a ${ctx.type.kind} must be a JSON object`);
  const spec = isPlainObject(body.spec) ? body.spec : {};
  const answer = {
    apiVersion: ctx.type.group ? `${ctx.type.group}/${ctx.version}` : ctx.version,
    kind: ctx.type.kind,
    metadata: { creationTimestamp: null },
    spec,
    status: statusFor(ctx, spec),
  };
  await reply(ctx, 201, answer);
}

function statusFor(ctx: HandlerContext, spec: Record<string, unknown>): Record<string, unknown> {
  switch (ctx.type.kind) {
    case 'SelfSubjectReview':
      return { userInfo: ctx.user };
    case 'SelfSubjectRulesReview':
      if (typeof spec.namespace !== 'string' || spec.namespace === '')
        throw invalidSpec(ctx, 'spec.namespace', 'Required value: no namespace on request');
      return { ...ctx.authorizer.rulesFor(ctx.user, spec.namespace) };
    case 'SubjectAccessReview':
    case 'LocalSubjectAccessReview': {
      const attributes = attributesOf(ctx, spec);
      if (typeof spec.user !== 'string' && !Array.isArray(spec.groups))
        throw invalidSpec(ctx, 'spec.user', 'Invalid value: "": at least one of user or group must be specified');
      const subject: UserInfo = {
        username: typeof spec.user === 'string' ? spec.user : '',
        groups: Array.isArray(spec.groups) ? spec.groups.filter((g): g is string => typeof g === 'string') : [],
      };
      return decide(ctx, attributes, subject);
    }
    default:
      return decide(ctx, attributesOf(ctx, spec), ctx.user);
  }
}

function decide(ctx: HandlerContext, attributes: RequestAttributes, user: UserInfo): Record<string, unknown> {
  const d = ctx.authorizer.authorize({ ...attributes, user });
  return d.allowed ? { allowed: true } : { allowed: false, ...(d.reason ? { reason: d.reason } : {}) };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Exactly one of resourceAttributes and nonResourceAttributes, as kube validates an access review. */
function attributesOf(ctx: HandlerContext, spec: Record<string, unknown>): RequestAttributes {
  const r = spec.resourceAttributes;
  const n = spec.nonResourceAttributes;
  if (isPlainObject(r) === isPlainObject(n)) {
    throw invalidSpec(
      ctx,
      'spec.resourceAttributes',
      'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
  }
  if (isPlainObject(n)) return { resourceRequest: false, verb: str(n.verb), path: str(n.path) };
  const a = r as Record<string, unknown>;
  // A LocalSubjectAccessReview asks about its own namespace.
  const namespace = ctx.type.kind === 'LocalSubjectAccessReview' ? ctx.namespace : str(a.namespace);
  if (
    ctx.type.kind === 'LocalSubjectAccessReview' &&
    a.namespace !== undefined &&
    a.namespace !== '' &&
    a.namespace !== ctx.namespace
  ) {
    throw invalidSpec(
      ctx,
      'spec.resourceAttributes.namespace',
      `Invalid value: ${JSON.stringify(a.namespace)}: must match metadata.namespace`,
    );
  }
  return {
    resourceRequest: true,
    verb: str(a.verb),
    group: str(a.group),
    resource: str(a.resource),
    ...(str(a.subresource) ? { subresource: str(a.subresource) } : {}),
    namespace,
    name: str(a.name),
  };
}

function invalidSpec(ctx: HandlerContext, field: string, message: string): E.StatusError {
  return E.invalid(ctx.type.kind, ctx.type.group, '', [{ reason: 'FieldValueInvalid', field, message }]);
}
