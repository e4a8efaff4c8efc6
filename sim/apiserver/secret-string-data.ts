// kube-apiserver folds a Secret's write-only stringData into data (base64) before storing it: stringData
// wins over data for the same key, and stringData itself is never stored or returned.
import type { KubeObject } from '../../lib/apis/meta.js';
import type { StatusCause } from './errors.js';
import { isPlainObject } from './json.js';

type Obj = KubeObject & Record<string, unknown>;

/** Returns the object to store (a copy when stringData was present) plus any validation causes. */
export function foldSecretStringData(obj: Obj): { object: Obj; causes: StatusCause[] } {
  if (!('stringData' in obj)) return { object: obj, causes: [] };
  const { stringData, ...rest } = obj;
  const out = rest as Obj;
  if (stringData === null || stringData === undefined) return { object: out, causes: [] };
  if (!isPlainObject(stringData)) {
    return {
      object: out,
      causes: [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: stringData must be a map of strings',
          field: 'stringData',
        },
      ],
    };
  }
  const causes: StatusCause[] = [];
  const data: Record<string, unknown> = isPlainObject(out.data) ? { ...out.data } : {};
  for (const [key, value] of Object.entries(stringData)) {
    if (typeof value !== 'string') {
      causes.push({
        reason: 'FieldValueInvalid',
        message: 'Invalid value: must be a string',
        field: `stringData[${key}]`,
      });
      continue;
    }
    data[key] = Buffer.from(value, 'utf8').toString('base64');
  }
  if (Object.keys(data).length > 0 || out.data !== undefined) out.data = data;
  return { object: out, causes };
}
