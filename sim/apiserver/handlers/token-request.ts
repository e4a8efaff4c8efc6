// POST serviceaccounts/<name>/token (TokenRequest, what `kubectl create token` sends): a token for the
// ServiceAccount, answered and never stored. It is valid while the account exists; expirationSeconds is
// echoed as kube defaults it (one hour), but the token itself does not expire.
import * as E from '../errors.js';
import { isPlainObject } from '../json.js';
import { readObjectBody, reply, type HandlerContext } from './context.js';

const DefaultExpirationSeconds = 3600;

export async function handleTokenRequest(ctx: HandlerContext): Promise<void> {
  const name = ctx.name ?? '';
  const sa = ctx.api.get(ctx.type, ctx.namespace, name);
  const body = await readObjectBody(ctx);
  if (!isPlainObject(body)) throw E.badRequest('the body of a TokenRequest must be a JSON object');
  const spec = isPlainObject(body.spec) ? body.spec : {};
  const expirationSeconds =
    typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : DefaultExpirationSeconds;
  if (!Number.isInteger(expirationSeconds) || expirationSeconds < 600) {
    throw E.invalid('TokenRequest', 'authentication.k8s.io', '', [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        message: 'Invalid value: may not specify a duration less than 10 minutes',
      },
    ]);
  }
  const now = ctx.now();
  const token = ctx.serviceAccountTokens.mint({ namespace: ctx.namespace, name, uid: sa.metadata.uid ?? '' }, now);
  await reply(ctx, 201, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    metadata: { name, namespace: ctx.namespace, creationTimestamp: null },
    spec: { audiences: [], ...spec, expirationSeconds },
    status: {
      token,
      expirationTimestamp: new Date(Math.floor(now / 1000) * 1000 + expirationSeconds * 1000)
        .toISOString()
        .replace('.000Z', 'Z'),
    },
  });
}
