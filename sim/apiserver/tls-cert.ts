// A self-signed serving certificate made at startup (ECDSA P-256, SAN 127.0.0.1 and localhost). The
// server speaks TLS because kubectl (client-go) only sends a bearer token over https; the kubeconfig
// carries the certificate as its CA, so clients verify the server without skipping TLS checks.
import { createHash, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
}

const seq = (...c: Buffer[]) => tlv(0x30, ...c);
const set = (...c: Buffer[]) => tlv(0x31, ...c);
const octets = (b: Buffer) => tlv(0x04, b);
const bits = (b: Buffer, unused = 0) => tlv(0x03, Buffer.from([unused]), b);
const explicit = (n: number, c: Buffer) => tlv(0xa0 + n, c);
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));

/**
 * A non-negative DER INTEGER from big-endian magnitude bytes. DER demands the shortest form: redundant
 * leading zero bytes are dropped (a random serial starting 0x00 0x0X is "illegal padding" to OpenSSL),
 * and a single 0x00 is added back only when the high bit would otherwise make the value negative.
 */
export function derUnsignedInteger(b: Buffer): Buffer {
  let start = 0;
  while (start < b.length - 1 && b[start] === 0) start++;
  const magnitude = b.length === 0 ? Buffer.from([0]) : b.subarray(start);
  const first = magnitude[0] ?? 0;
  return tlv(0x02, first & 0x80 ? Buffer.concat([Buffer.from([0]), magnitude]) : magnitude);
}

const int = derUnsignedInteger;

function oid(s: string): Buffer {
  const parts = s.split('.').map(Number);
  const out: number[] = [(parts[0] ?? 0) * 40 + (parts[1] ?? 0)];
  for (const p of parts.slice(2)) {
    const chunk: number[] = [p & 0x7f];
    for (let v = p >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

function utcTime(d: Date): Buffer {
  const iso = d.toISOString();
  const s = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return tlv(0x17, Buffer.from(s, 'ascii'));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? seq(oid(id), bool(true), octets(value)) : seq(oid(id), octets(value));
}

export interface ServingCert {
  certPem: string;
  keyPem: string;
}

export interface ServingCertOptions {
  /** Serial number bytes (big-endian); default 16 random bytes. Tests pass edge cases. */
  serial?: Buffer;
  /** DNS names the certificate is also valid for, besides localhost (e.g. a webhook Service's `<name>.<namespace>.svc`). */
  dnsNames?: string[];
}

export function generateServingCert(
  commonName = 'machine-api-envtest',
  now = Date.now(),
  options: ServingCertOptions = {},
): ServingCert {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const ecdsaWithSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName, 'utf8')))));
  // RFC 5280: a positive serial of at most 20 octets; the high bit is cleared so the encoding needs no pad.
  const serial = Buffer.from(options.serial ?? randomBytes(16));
  serial[0] = (serial[0] ?? 0) & 0x7f;
  if (serial.every((b) => b === 0)) serial[serial.length - 1] = 1;
  const ski = createHash('sha1').update(spki).digest();
  const extensions = seq(
    extension('2.5.29.19', true, seq(bool(true))),
    // digitalSignature (bit 0) and keyCertSign (bit 5)
    extension('2.5.29.15', true, bits(Buffer.from([0x84]), 2)),
    extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))),
    extension('2.5.29.14', false, octets(ski)),
    extension(
      '2.5.29.17',
      false,
      seq(
        ...['localhost', ...(options.dnsNames ?? [])].map((dns) => tlv(0x82, Buffer.from(dns, 'ascii'))),
        tlv(0x87, Buffer.from([127, 0, 0, 1])),
      ),
    ),
  );
  const tbs = seq(
    explicit(0, int(Buffer.from([2]))),
    int(serial),
    ecdsaWithSha256,
    name,
    seq(utcTime(new Date(now - 3600_000)), utcTime(new Date(now + 10 * 365 * 24 * 3600_000))),
    name,
    spki,
    explicit(3, extensions),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, ecdsaWithSha256, bits(signature));
  const certPem = `-----BEGIN CERTIFICATE-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
  // Parsing it back proves the encoding before anyone relies on it.
  new X509Certificate(certPem);
  return { certPem, keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
