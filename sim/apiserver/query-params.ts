// Boolean query parameters read as kube-apiserver reads them, with Go's spellings: kubectl sends
// `watch=true`, the Python client `watch=True`, other clients `1`. Anything else is a 400 naming the
// parameter, never a silent false (a watch that quietly became a list returns nothing and hangs no one).
import { parseGoBool } from '../../lib/apis/go-bool.js';
import * as E from './errors.js';

/** undefined when the parameter is absent; a StatusError 400 when it is not a Go boolean. */
export function boolQueryParam(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  try {
    return parseGoBool(value, `query parameter "${name}"`);
  } catch (err) {
    throw E.badRequest((err as Error).message);
  }
}
