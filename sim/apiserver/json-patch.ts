// JSON Patch (RFC 6902) over JSON Pointers (RFC 6901), as kube-apiserver applies application/json-patch+json:
// operations run in order on a copy; the first failure aborts the whole patch.
import { PatchError } from './patch-error.js';
import { cloneJson, isJsonObject, jsonEqual, setKey } from './json-value.js';

const operations = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

function parsePointer(pointer: unknown, where: string): string[] {
  if (typeof pointer !== 'string') throw new PatchError(400, `${where}: must be a JSON Pointer string`);
  if (pointer === '') return [];
  if (!pointer.startsWith('/'))
    throw new PatchError(400, `${where}: JSON Pointer ${JSON.stringify(pointer)} must start with "/"`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(token: string, length: number, allowEnd: boolean, pointer: string): number {
  if (!/^(0|[1-9]\d*)$/.test(token))
    throw new PatchError(422, `invalid array index ${JSON.stringify(token)} in path ${JSON.stringify(pointer)}`);
  const i = Number(token);
  if (i > length || (!allowEnd && i === length)) {
    throw new PatchError(422, `array index ${i} out of bounds (length ${length}) in path ${JSON.stringify(pointer)}`);
  }
  return i;
}

function missing(pointer: string): PatchError {
  return new PatchError(422, `doc is missing path: ${JSON.stringify(pointer)}`);
}

function getAt(doc: unknown, tokens: string[], pointer: string): unknown {
  let cur = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(t, cur.length, false, pointer)];
    else if (isJsonObject(cur) && Object.hasOwn(cur, t)) cur = cur[t];
    else throw missing(pointer);
  }
  return cur;
}

/** Splits a pointer into its container (which must exist) and the last reference token. */
function parentOf(doc: unknown, tokens: string[], pointer: string): { parent: unknown; key: string } {
  const key = tokens[tokens.length - 1] ?? '';
  return { parent: getAt(doc, tokens.slice(0, -1), pointer), key };
}

function addAt(doc: unknown, tokens: string[], value: unknown, pointer: string): unknown {
  if (tokens.length === 0) return value;
  const { parent, key } = parentOf(doc, tokens, pointer);
  if (Array.isArray(parent)) {
    if (key === '-') parent.push(value);
    else parent.splice(arrayIndex(key, parent.length, true, pointer), 0, value);
  } else if (isJsonObject(parent)) {
    setKey(parent, key, value);
  } else {
    throw missing(pointer);
  }
  return doc;
}

function removeAt(doc: unknown, tokens: string[], pointer: string): unknown {
  if (tokens.length === 0) throw new PatchError(422, 'cannot remove the whole document');
  const { parent, key } = parentOf(doc, tokens, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, false, pointer), 1);
  else if (isJsonObject(parent) && Object.hasOwn(parent, key)) delete parent[key];
  else throw missing(pointer);
  return doc;
}

function replaceAt(doc: unknown, tokens: string[], value: unknown, pointer: string): unknown {
  if (tokens.length === 0) return value;
  const { parent, key } = parentOf(doc, tokens, pointer);
  if (Array.isArray(parent)) parent[arrayIndex(key, parent.length, false, pointer)] = value;
  else if (isJsonObject(parent) && Object.hasOwn(parent, key)) setKey(parent, key, value);
  else throw missing(pointer);
  return doc;
}

function isPrefix(prefix: string[], tokens: string[]): boolean {
  return prefix.length < tokens.length && prefix.every((t, i) => tokens[i] === t);
}

/** Bounds on what a patch may make; copy is the one operation that can grow a document faster than the patch. */
export interface JsonPatchLimits {
  /** Total bytes (as JSON) all copy operations may duplicate; beyond it the patch fails. */
  maxCopiedBytes?: number;
}

function applyOne(doc: unknown, raw: unknown, index: number, copied: { bytes: number; limit: number }): unknown {
  const where = `operation ${index}`;
  if (!isJsonObject(raw)) throw new PatchError(400, `${where}: must be an object`);
  const op = raw.op;
  if (typeof op !== 'string' || !operations.has(op)) {
    throw new PatchError(
      400,
      `${where}: unsupported op ${JSON.stringify(op)}; expected one of add, remove, replace, move, copy, test`,
    );
  }
  const pointer = raw.path as string;
  const tokens = parsePointer(raw.path, `${where} (${op}) path`);
  const needsValue = op === 'add' || op === 'replace' || op === 'test';
  if (needsValue && !Object.hasOwn(raw, 'value')) throw new PatchError(400, `${where} (${op}): missing "value"`);
  const value = cloneJson(raw.value);

  switch (op) {
    case 'add':
      return addAt(doc, tokens, value, pointer);
    case 'remove':
      return removeAt(doc, tokens, pointer);
    case 'replace':
      return replaceAt(doc, tokens, value, pointer);
    case 'test': {
      const actual = getAt(doc, tokens, pointer);
      if (!jsonEqual(actual, value))
        throw new PatchError(422, `testing value ${JSON.stringify(pointer)} failed: value differs`);
      return doc;
    }
    default: {
      // move and copy
      const fromTokens = parsePointer(raw.from, `${where} (${op}) from`);
      const from = raw.from as string;
      const moved = cloneJson(getAt(doc, fromTokens, from));
      if (op === 'copy') {
        if (Number.isFinite(copied.limit)) {
          copied.bytes += JSON.stringify(moved ?? null).length;
          if (copied.bytes > copied.limit)
            throw new PatchError(422, `${where}: the patch copies more than ${copied.limit} bytes`);
        }
        return addAt(doc, tokens, moved, pointer);
      }
      if (isPrefix(fromTokens, tokens))
        throw new PatchError(
          422,
          `${where}: cannot move ${JSON.stringify(from)} into its own child ${JSON.stringify(pointer)}`,
        );
      if (fromTokens.length === tokens.length && fromTokens.every((t, i) => tokens[i] === t)) return doc;
      return addAt(removeAt(doc, fromTokens, from), tokens, moved, pointer);
    }
  }
}

/** Applies an RFC 6902 patch (an array of operations) to a copy of `target`. Throws PatchError. */
export function applyJsonPatch(target: unknown, ops: unknown, limits: JsonPatchLimits = {}): unknown {
  if (!Array.isArray(ops)) throw new PatchError(400, 'a JSON patch must be an array of operations');
  let doc = cloneJson(target);
  const copied = { bytes: 0, limit: limits.maxCopiedBytes ?? Number.POSITIVE_INFINITY };
  ops.forEach((op, i) => {
    doc = applyOne(doc, op, i, copied);
  });
  return doc;
}
