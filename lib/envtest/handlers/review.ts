// POST of a review kind: who the caller is (SelfSubjectReview) and what it may do (the access and rules
// reviews), answered and never stored, as kube-apiserver does. The local control plane knows one user, the
// holder of its bearer token, who is a cluster administrator: it may do everything; about any other subject
// (asked about, or impersonated with Impersonate-User as `kubectl --as` does) it can only say no.
import * as E from '../errors.js';
import { isPlainObject } from '../json.js';
import { readObjectBody, reply, type HandlerContext } from './context.js';

/** The identity behind the control plane's token, as OpenShift's installer kubeconfig presents itself. */
export const EnvtestUser = { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] } as const;

const everything = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
};

export async function handleReview(ctx: HandlerContext): Promise<void> {
  if (ctx.req.method !== 'POST' || ctx.name !== undefined || ctx.subresource !== undefined) throw E.methodNotAllowed();
  if (ctx.type.namespaced && !ctx.namespace) throw E.notFoundPath();
  const body = await readObjectBody(ctx);
  if (!isPlainObject(body)) throw E.badRequest(`the body of a ${ctx.type.kind} must be a JSON object`);
  const spec = isPlainObject(body.spec) ? body.spec : {};
  const answer = { apiVersion: ctx.type.group ? `${ctx.type.group}/${ctx.version}` : ctx.version, kind: ctx.type.kind, metadata: { creationTimestamp: null }, spec, status: statusFor(ctx, spec) };
  await reply(ctx, 201, answer);
}

interface Subject {
  user?: unknown;
  groups?: unknown;
}

/** Who the request acts as: the token's user, or the one it impersonates (the admin may impersonate anyone). */
function requester(ctx: HandlerContext): { username: string; groups: string[] } {
  const header = (name: string): string[] => {
    const v = ctx.req.headers[name];
    return v === undefined ? [] : Array.isArray(v) ? v : [v];
  };
  const [user] = header('impersonate-user');
  if (user === undefined) return { username: EnvtestUser.username, groups: [...EnvtestUser.groups] };
  return { username: user, groups: [...header('impersonate-group'), 'system:authenticated'] };
}

function statusFor(ctx: HandlerContext, spec: Record<string, unknown>): Record<string, unknown> {
  const self = requester(ctx);
  switch (ctx.type.kind) {
    case 'SelfSubjectReview':
      return { userInfo: self };
    case 'SelfSubjectRulesReview':
      if (typeof spec.namespace !== 'string' || spec.namespace === '') throw invalidSpec(ctx, 'spec.namespace', 'Required value: no namespace on request');
      return isEnvtestUser({ user: self.username, groups: self.groups }) ? everything : { resourceRules: [], nonResourceRules: [], incomplete: false };
    case 'SubjectAccessReview':
    case 'LocalSubjectAccessReview':
      checkAttributes(ctx, spec);
      if (typeof spec.user !== 'string' && !Array.isArray(spec.groups)) throw invalidSpec(ctx, 'spec.user', 'Invalid value: "": at least one of user or group must be specified');
      return isEnvtestUser(spec)
        ? { allowed: true }
        : { allowed: false, reason: `the local control plane authorizes only its own user (${EnvtestUser.username})` };
    default:
      checkAttributes(ctx, spec);
      return isEnvtestUser({ user: self.username, groups: self.groups })
        ? { allowed: true }
        : { allowed: false, reason: `the local control plane authorizes only its own user (${EnvtestUser.username})` };
  }
}

/** Exactly one of resourceAttributes and nonResourceAttributes, as kube validates an access review. */
function checkAttributes(ctx: HandlerContext, spec: Record<string, unknown>): void {
  const resource = isPlainObject(spec.resourceAttributes);
  const nonResource = isPlainObject(spec.nonResourceAttributes);
  if (resource === nonResource) {
    throw invalidSpec(ctx, 'spec.resourceAttributes', 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified');
  }
}

function isEnvtestUser(spec: Subject): boolean {
  if (spec.user === EnvtestUser.username) return true;
  return Array.isArray(spec.groups) && spec.groups.includes('system:masters');
}

function invalidSpec(ctx: HandlerContext, field: string, message: string): E.StatusError {
  return E.invalid(ctx.type.kind, ctx.type.group, '', [{ reason: 'FieldValueInvalid', field, message }]);
}
