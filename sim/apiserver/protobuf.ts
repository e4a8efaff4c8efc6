// Decoding of the Kubernetes protobuf envelope for the few built-in kinds kubectl's generator commands
// (`kubectl create namespace|configmap|secret|token`, `kubectl auth`) send as application/vnd.kubernetes.protobuf; client-go
// does not fall back to JSON when a server refuses protobuf. Every other kind gets 415 as before.
import * as E from './errors.js';

type FieldType = 'string' | 'int' | 'bool' | 'bytes' | 'time' | 'stringMap' | 'bytesMap' | Schema;
interface Field {
  name: string;
  type: FieldType;
  repeated?: boolean;
}
type Schema = Record<number, Field>;

const time: FieldType = 'time';
const ownerReference: Schema = {
  1: { name: 'kind', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'controller', type: 'bool' },
  7: { name: 'blockOwnerDeletion', type: 'bool' },
};
const objectMeta: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'generateName', type: 'string' },
  3: { name: 'namespace', type: 'string' },
  5: { name: 'uid', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'generation', type: 'int' },
  8: { name: 'creationTimestamp', type: time },
  9: { name: 'deletionTimestamp', type: time },
  10: { name: 'deletionGracePeriodSeconds', type: 'int' },
  11: { name: 'labels', type: 'stringMap' },
  12: { name: 'annotations', type: 'stringMap' },
  13: { name: 'ownerReferences', type: ownerReference, repeated: true },
  14: { name: 'finalizers', type: 'string', repeated: true },
};
const kinds: Record<string, Schema> = {
  Namespace: {
    1: { name: 'metadata', type: objectMeta },
    2: { name: 'spec', type: { 1: { name: 'finalizers', type: 'string', repeated: true } } },
    3: { name: 'status', type: { 1: { name: 'phase', type: 'string' } } },
  },
  ConfigMap: {
    1: { name: 'metadata', type: objectMeta },
    2: { name: 'data', type: 'stringMap' },
    3: { name: 'binaryData', type: 'bytesMap' },
    4: { name: 'immutable', type: 'bool' },
  },
  Secret: {
    1: { name: 'metadata', type: objectMeta },
    2: { name: 'data', type: 'bytesMap' },
    3: { name: 'type', type: 'string' },
    4: { name: 'stringData', type: 'stringMap' },
    5: { name: 'immutable', type: 'bool' },
  },
};

// The review kinds kubectl auth sends (k8s.io/api authorization/v1 and authentication/v1 generated.proto).
const resourceAttributes: Schema = {
  1: { name: 'namespace', type: 'string' },
  2: { name: 'verb', type: 'string' },
  3: { name: 'group', type: 'string' },
  4: { name: 'version', type: 'string' },
  5: { name: 'resource', type: 'string' },
  6: { name: 'subresource', type: 'string' },
  7: { name: 'name', type: 'string' },
};
const nonResourceAttributes: Schema = { 1: { name: 'path', type: 'string' }, 2: { name: 'verb', type: 'string' } };
const accessReviewSpec: Schema = {
  1: { name: 'resourceAttributes', type: resourceAttributes },
  2: { name: 'nonResourceAttributes', type: nonResourceAttributes },
};
const groupKinds: Record<string, Schema> = {
  'authorization.k8s.io/v1 SelfSubjectAccessReview': {
    1: { name: 'metadata', type: objectMeta },
    2: { name: 'spec', type: accessReviewSpec },
  },
  'authorization.k8s.io/v1 SelfSubjectRulesReview': {
    1: { name: 'metadata', type: objectMeta },
    2: { name: 'spec', type: { 1: { name: 'namespace', type: 'string' } } },
  },
  'authorization.k8s.io/v1 SubjectAccessReview': {
    1: { name: 'metadata', type: objectMeta },
    2: {
      name: 'spec',
      type: {
        ...accessReviewSpec,
        3: { name: 'user', type: 'string' },
        4: { name: 'groups', type: 'string', repeated: true },
        6: { name: 'uid', type: 'string' },
      },
    },
  },
  'authorization.k8s.io/v1 LocalSubjectAccessReview': {
    1: { name: 'metadata', type: objectMeta },
    2: {
      name: 'spec',
      type: {
        ...accessReviewSpec,
        3: { name: 'user', type: 'string' },
        4: { name: 'groups', type: 'string', repeated: true },
        6: { name: 'uid', type: 'string' },
      },
    },
  },
  'authentication.k8s.io/v1 SelfSubjectReview': { 1: { name: 'metadata', type: objectMeta } },
  // What `kubectl create token` sends (serviceaccounts/<name>/token).
  'authentication.k8s.io/v1 TokenRequest': {
    1: { name: 'metadata', type: objectMeta },
    2: {
      name: 'spec',
      type: {
        1: { name: 'audiences', type: 'string', repeated: true },
        3: {
          name: 'boundObjectRef',
          type: {
            1: { name: 'kind', type: 'string' },
            2: { name: 'apiVersion', type: 'string' },
            3: { name: 'name', type: 'string' },
            4: { name: 'uid', type: 'string' },
          },
        },
        4: { name: 'expirationSeconds', type: 'int' },
      },
    },
  },
};

const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.buf[this.pos++];
      if (b === undefined) throw E.badRequest('truncated protobuf body');
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
  }
  bytes(): Buffer {
    const n = this.varint();
    const out = this.buf.subarray(this.pos, this.pos + n);
    if (out.length !== n) throw E.badRequest('truncated protobuf body');
    this.pos += n;
    return out;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw E.badRequest(`unsupported protobuf wire type ${wire}`);
  }
}

function decodeMapEntry(buf: Buffer, valueAsBase64: boolean): [string, string] {
  const r = new Reader(buf);
  let key = '';
  let value = '';
  while (!r.done) {
    const tag = r.varint();
    if (tag >>> 3 === 1) key = r.bytes().toString('utf8');
    else if (tag >>> 3 === 2) value = valueAsBase64 ? r.bytes().toString('base64') : r.bytes().toString('utf8');
    else r.skip(tag & 7);
  }
  return [key, value];
}

/** A zero metav1.Time (seconds 0) is how Go encodes "unset"; it decodes to undefined. */
function decodeTime(buf: Buffer): string | undefined {
  const r = new Reader(buf);
  let seconds = 0;
  while (!r.done) {
    const tag = r.varint();
    if (tag >>> 3 === 1) seconds = r.varint();
    else r.skip(tag & 7);
  }
  return seconds === 0 ? undefined : new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

function decodeMessage(buf: Buffer, schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const r = new Reader(buf);
  while (!r.done) {
    const tag = r.varint();
    const field = schema[tag >>> 3];
    if (!field) {
      r.skip(tag & 7);
      continue;
    }
    let value: unknown;
    switch (field.type) {
      case 'int':
        value = r.varint();
        break;
      case 'bool':
        value = r.varint() !== 0;
        break;
      case 'string':
        value = r.bytes().toString('utf8');
        break;
      case 'bytes':
        value = r.bytes().toString('base64');
        break;
      case 'time':
        value = decodeTime(r.bytes());
        break;
      case 'stringMap':
      case 'bytesMap': {
        const [k, v] = decodeMapEntry(r.bytes(), field.type === 'bytesMap');
        const map = (out[field.name] ??= {}) as Record<string, string>;
        map[k] = v;
        continue;
      }
      default:
        value = decodeMessage(r.bytes(), field.type);
    }
    // Go writes empty optional strings; kube reads them as unset.
    if (value === undefined || (value === '' && !field.repeated)) continue;
    if (field.repeated) ((out[field.name] ??= []) as unknown[]).push(value);
    else out[field.name] = value;
  }
  return out;
}

/** Decodes a k8s protobuf body into the JSON object it stands for; 415 for kinds this server cannot read. */
export function decodeProtobufObject(body: Buffer, accepted: string[]): Record<string, unknown> {
  if (body.length < 4 || !body.subarray(0, 4).equals(magic))
    throw E.badRequest('protobuf body without the k8s envelope');
  const envelope = decodeMessage(body.subarray(4), {
    1: { name: 'typeMeta', type: { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } } },
    2: { name: 'raw', type: 'bytes' },
  });
  const typeMeta = (envelope.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const key = `${typeMeta.apiVersion ?? ''} ${typeMeta.kind ?? ''}`;
  const schema = !typeMeta.kind
    ? undefined
    : typeMeta.apiVersion === 'v1'
      ? kinds[typeMeta.kind]
      : Object.hasOwn(groupKinds, key)
        ? groupKinds[key]
        : undefined;
  if (!schema) throw E.unsupportedMediaType('application/vnd.kubernetes.protobuf', accepted);
  const raw = Buffer.from(typeof envelope.raw === 'string' ? envelope.raw : '', 'base64');
  return { apiVersion: typeMeta.apiVersion, kind: typeMeta.kind, ...decodeMessage(raw, schema) };
}
