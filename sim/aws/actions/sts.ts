// STS AssumeRoleWithWebIdentity (Query protocol, unsigned as on AWS): exchanges a web identity token (the
// cluster's bound service-account token) for temporary credentials that the emulator's EC2 then accepts.
import { Ec2ApiError, missingParameter } from '../api-error.js';
import { MAX_SESSION_SECONDS, MIN_SESSION_SECONDS } from '../session-credentials.js';
import { el } from '../xml.js';
import type { ActionContext } from './action-context.js';

const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/;

export function assumeRoleWithWebIdentity({ params, state }: ActionContext) {
  const roleArn = params.get('RoleArn');
  const sessionName = params.get('RoleSessionName');
  const token = params.get('WebIdentityToken');
  if (!roleArn) throw missingParameter('RoleArn');
  if (!sessionName) throw missingParameter('RoleSessionName');
  if (!token) throw missingParameter('WebIdentityToken');
  if (!ROLE_ARN.test(roleArn)) throw new Ec2ApiError(400, 'ValidationError', `${roleArn} is invalid`);
  if (token.split('.').length !== 3)
    throw new Ec2ApiError(400, 'InvalidIdentityToken', "Couldn't parse the web identity token: it is not a JWT");
  const duration = params.get('DurationSeconds');
  const seconds = duration === undefined ? undefined : Number(duration);
  if (
    seconds !== undefined &&
    (!Number.isInteger(seconds) || seconds < MIN_SESSION_SECONDS || seconds > MAX_SESSION_SECONDS)
  ) {
    throw new Ec2ApiError(
      400,
      'ValidationError',
      `1 validation error detected: Value '${duration}' at 'durationSeconds' failed to satisfy constraint`,
    );
  }
  const c = state.sessions.issue(roleArn, sessionName, seconds);
  const account = roleArn.split(':')[4] ?? '';
  const role =
    roleArn
      .slice(roleArn.indexOf(':role/') + ':role/'.length)
      .split('/')
      .pop() ?? '';
  return [
    el(
      'Credentials',
      el('AccessKeyId', c.accessKeyId),
      el('SecretAccessKey', c.secretAccessKey),
      el('SessionToken', c.sessionToken),
      el('Expiration', new Date(c.expiresAt).toISOString()),
    ),
    el('SubjectFromWebIdentityToken', 'system:serviceaccount:openshift-machine-api:machine-api-controllers'),
    el(
      'AssumedRoleUser',
      el('Arn', `arn:aws:sts::${account}:assumed-role/${role}/${sessionName}`),
      el('AssumedRoleId', `AROA${account}:${sessionName}`),
    ),
    el('Provider', 'oidc'),
    el('Audience', 'openshift'),
  ];
}
