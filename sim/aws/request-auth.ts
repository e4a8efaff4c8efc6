// Who signed an EC2 or ELB request, checked as AWS checks it: SigV4 by one of the account's access keys or by
// live STS session credentials, scoped to this region and service; refusals in each API's own codes.
import type { AccessKeyStore } from './access-keys.js';
import type { SessionCredentialStore } from './session-credentials.js';
import { headerValue, parseSigV4Authorization, signatureMatches, type ReceivedRequest } from './sigv4.js';
import type { ServiceName } from './wire.js';

interface AuthRefusal {
  status: number;
  code: string;
  message: string;
}

interface AuthContext {
  region: string;
  service: Exclude<ServiceName, 'sts'>;
  keys: AccessKeyStore;
  sessions: SessionCredentialStore;
}

const SIGNATURE_MISMATCH: AuthRefusal = {
  status: 403,
  code: 'SignatureDoesNotMatch',
  message:
    'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
};

const EC2_AUTH_FAILURE: AuthRefusal = {
  status: 401,
  code: 'AuthFailure',
  message: 'AWS was not able to validate the provided access credentials',
};

/** A key the account does not have: EC2 answers AuthFailure (401), the ELB APIs InvalidClientTokenId (403). */
const unknownKey = (service: AuthContext['service']): AuthRefusal =>
  service === 'ec2'
    ? EC2_AUTH_FAILURE
    : { status: 403, code: 'InvalidClientTokenId', message: 'The security token included in the request is invalid.' };

/** No usable signature: EC2 answers AuthFailure (401), the ELB APIs MissingAuthenticationToken (403). */
const unsigned = (service: AuthContext['service']): AuthRefusal =>
  service === 'ec2'
    ? EC2_AUTH_FAILURE
    : { status: 403, code: 'MissingAuthenticationToken', message: 'Request is missing Authentication Token' };

/**
 * Checks a request's SigV4 signature as AWS does: the key must be one of the account's (or a live STS session,
 * with its session token), the scope must name this region and service, and the signature must be the one the
 * key's secret makes of what arrived. Returns the refusal, or undefined when the request is authentic.
 */
export function checkAuth(
  req: ReceivedRequest,
  sessionToken: string | string[] | undefined,
  c: AuthContext,
): AuthRefusal | undefined {
  const auth = parseSigV4Authorization(headerValue(req.rawHeaders, 'authorization'));
  if (!auth) return unsigned(c.service);
  let secret: string | undefined;
  if (c.sessions.has(auth.accessKeyId)) {
    const r = c.sessions.refusal(auth.accessKeyId, typeof sessionToken === 'string' ? sessionToken : undefined);
    if (r) return { status: r.code === 'RequestExpired' ? 400 : 401, code: r.code, message: r.message };
    secret = c.sessions.secretOf(auth.accessKeyId);
  } else {
    secret = c.keys.secretOf(auth.accessKeyId);
  }
  if (secret === undefined) return unknownKey(c.service);
  const signingName = c.service === 'ec2' ? 'ec2' : 'elasticloadbalancing';
  const scopeError = (message: string): AuthRefusal =>
    c.service === 'ec2' ? { status: 401, code: 'AuthFailure', message } : { ...SIGNATURE_MISMATCH, message };
  if (auth.region !== c.region)
    return scopeError(`Credential should be scoped to a valid region, not '${auth.region}'.`);
  if (auth.service !== signingName)
    return scopeError(`Credential should be scoped to correct service: '${signingName}'.`);
  return signatureMatches(auth, secret, req) ? undefined : SIGNATURE_MISMATCH;
}
