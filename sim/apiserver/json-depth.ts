// How deeply a request body may nest. kube-apiserver decodes JSON up to 10,000 levels, but here
// JSON.stringify and the recursive copy, compare, patch and schema code run on V8's default stack,
// which overflows somewhere between 2,000 and 5,000 levels depending on how deep the caller already
// is. 1,000 levels is far beyond any real object (Kubernetes objects rarely pass 20) and leaves a wide
// margin, so a body the server accepts can always be stored, served and watched.
import { jsonNestingExceeds } from '../../lib/apis/json-nesting.js';
import * as E from './errors.js';

export const MaxJsonDepth = 1_000;

function tooDeep(limit: number): E.StatusError {
  return E.badRequest(
    `the request body nests objects and arrays more than ${limit} levels deep, the most this server accepts`,
  );
}

/**
 * Checks the nesting of JSON text in one pass without parsing it, so a hostile body is refused before
 * JSON.parse builds it (and before any recursive code can overflow the stack on it). Brackets inside
 * strings do not count. Malformed JSON is left for JSON.parse to report.
 */
export function checkJsonTextDepth(text: string, limit = MaxJsonDepth): void {
  if (jsonNestingExceeds(text, limit)) throw tooDeep(limit);
}

/**
 * The same limit for a value that did not come from JSON text (a YAML body, the result of a patch),
 * checked with an explicit stack rather than recursion.
 */
export function checkValueDepth(value: unknown, limit = MaxJsonDepth): void {
  const stack: Array<{ v: unknown; depth: number }> = [{ v: value, depth: 0 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { v, depth } = top;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > limit) throw tooDeep(limit);
    const children = Array.isArray(v) ? (v as unknown[]) : Object.values(v as Record<string, unknown>);
    for (const child of children)
      if (child !== null && typeof child === 'object') stack.push({ v: child, depth: depth + 1 });
  }
}
