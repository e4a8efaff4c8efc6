// AWS Signature Version 4 as a service checks it: the Authorization header names the access key, the scope
// and the signed headers; the service rebuilds the canonical request from what it received, signs it with the
// secret it holds for that key, and compares. Only the header form is read (EC2 clients never presign).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export interface SigV4Authorization {
  accessKeyId: string;
  /** YYYYMMDD of the credential scope. */
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

/** What the service received: method, the request target as sent, raw headers and the body. */
export interface ReceivedRequest {
  method: string;
  /** The request target ("/?Action=..."), undecoded. */
  url: string;
  /** node's rawHeaders: name, value, name, value... */
  rawHeaders: readonly string[];
  body: string;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';

/** The parts of an `AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...` header; undefined if malformed. */
export function parseSigV4Authorization(header: string | undefined): SigV4Authorization | undefined {
  if (!header?.startsWith(`${ALGORITHM} `)) return undefined;
  const fields = new Map<string, string>();
  for (const part of header.slice(ALGORITHM.length + 1).split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const scope = (fields.get('Credential') ?? '').split('/');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (scope.length !== 5 || scope[4] !== 'aws4_request' || !signedHeaders || !signature) return undefined;
  const [accessKeyId, date, region, service] = scope as [string, string, string, string];
  if (!accessKeyId || !/^\d{8}$/.test(date)) return undefined;
  return { accessKeyId, date, region, service, signedHeaders: signedHeaders.split(';'), signature };
}

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters, upper-case hex. */
function uriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function canonicalQuery(query: string): string {
  if (query === '') return '';
  return query
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const eq = p.indexOf('=');
      const k = eq < 0 ? p : p.slice(0, eq);
      const v = eq < 0 ? '' : p.slice(eq + 1);
      return [uriEncode(safeDecode(k)), uriEncode(safeDecode(v))] as const;
    })
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function canonicalHeaders(rawHeaders: readonly string[], signed: readonly string[]): string {
  const values = new Map<string, string[]>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const list = values.get(name) ?? [];
    list.push((rawHeaders[i + 1] as string).trim().replace(/\s+/g, ' '));
    values.set(name, list);
  }
  return signed.map((h) => `${h}:${(values.get(h) ?? []).join(',')}\n`).join('');
}

const sha256Hex = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/** The first value of a header in node's rawHeaders (name, value, name, value...); `name` in lower case. */
export function headerValue(rawHeaders: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    if ((rawHeaders[i] as string).toLowerCase() === name) return rawHeaders[i + 1];
  return undefined;
}

/** The signature the service computes for `req` with `secretAccessKey` under the scope `auth` names. */
export function expectedSignature(auth: SigV4Authorization, secretAccessKey: string, req: ReceivedRequest): string {
  const q = req.url.indexOf('?');
  const path = q < 0 ? req.url : req.url.slice(0, q);
  const query = q < 0 ? '' : req.url.slice(q + 1);
  const canonicalPath = (path === '' ? '/' : path)
    .split('/')
    .map((s) => uriEncode(safeDecode(s)))
    .join('/');
  const payloadHash = headerValue(req.rawHeaders, 'x-amz-content-sha256');
  const canonicalRequest = [
    req.method,
    canonicalPath,
    canonicalQuery(query),
    canonicalHeaders(req.rawHeaders, auth.signedHeaders),
    auth.signedHeaders.join(';'),
    payloadHash || sha256Hex(req.body),
  ].join('\n');
  const scope = `${auth.date}/${auth.region}/${auth.service}/aws4_request`;
  const time = (headerValue(req.rawHeaders, 'x-amz-date') ?? '').trim();
  const stringToSign = [ALGORITHM, time, scope, sha256Hex(canonicalRequest)].join('\n');
  const kDate = hmac(`AWS4${secretAccessKey}`, auth.date);
  const kSigning = hmac(hmac(hmac(kDate, auth.region), auth.service), 'aws4_request');
  return createHmac('sha256', kSigning).update(stringToSign, 'utf8').digest('hex');
}

/** Whether the request's signature is the one `secretAccessKey` makes (compared in constant time). */
export function signatureMatches(auth: SigV4Authorization, secretAccessKey: string, req: ReceivedRequest): boolean {
  const want = Buffer.from(expectedSignature(auth, secretAccessKey, req));
  const got = Buffer.from(auth.signature);
  return want.length === got.length && timingSafeEqual(want, got);
}

/**
 * The x-amz-date and Authorization headers that sign a request with `key`, signing host, x-amz-date and
 * content-type: for tests that speak the wire protocol by hand (the SDKs and the CLI sign for themselves).
 */
export function signRequest(
  key: { accessKeyId: string; secretAccessKey: string },
  scope: { region: string; service: string; now?: Date },
  req: { method: string; url: string; host: string; contentType?: string; body: string },
): { 'x-amz-date': string; authorization: string } {
  const amzDate = (scope.now ?? new Date())
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const headers: [string, string][] = [['host', req.host]];
  if (req.contentType !== undefined) headers.push(['content-type', req.contentType]);
  headers.push(['x-amz-date', amzDate]);
  const auth: SigV4Authorization = {
    accessKeyId: key.accessKeyId,
    date: amzDate.slice(0, 8),
    region: scope.region,
    service: scope.service,
    signedHeaders: headers.map(([h]) => h),
    signature: '',
  };
  const signature = expectedSignature(auth, key.secretAccessKey, {
    method: req.method,
    url: req.url,
    rawHeaders: headers.flat(),
    body: req.body,
  });
  const credential = `${key.accessKeyId}/${auth.date}/${scope.region}/${scope.service}/aws4_request`;
  return {
    'x-amz-date': amzDate,
    authorization: `${ALGORITHM} Credential=${credential}, SignedHeaders=${auth.signedHeaders.join(';')}, Signature=${signature}`,
  };
}
