// Fields a JSON text gives twice in one object. JSON.parse keeps the last value silently, as Go's decoder
// does, but kube-apiserver reports each duplicate per fieldValidation (Strict fails, Warn warns), naming it
// by its path in kube's form: `metadata.name`, `spec.template.spec.containers[0].imagePullPolicy`.
//
// One pass over the text with an explicit stack, linear in its length whatever it holds. It expects text
// JSON.parse has accepted already (and the nesting limit has checked), so it does not validate.

interface Frame {
  /** The path of this container in kube's form ('' at the top). */
  path: string;
  /** An object's keys seen so far; undefined for an array. */
  keys?: Set<string>;
  /** An array's next element index. */
  index: number;
  /** The key whose value comes next (objects), set after a key is read. */
  pendingKey?: string;
}

function childPath(parent: Frame): string {
  if (parent.keys) return parent.path === '' ? (parent.pendingKey ?? '') : `${parent.path}.${parent.pendingKey ?? ''}`;
  return `${parent.path}[${parent.index}]`;
}

/** The end (exclusive) of the string literal opening at `start` (a quote). */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i += 2;
    else if (c === 0x22) return i + 1;
    else i++;
  }
  return text.length;
}

export function duplicateJsonFields(text: string): string[] {
  const duplicates: string[] = [];
  const stack: Frame[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 0x7b || c === 0x5b) {
      const path = top ? childPath(top) : '';
      stack.push(c === 0x7b ? { path, keys: new Set(), index: 0 } : { path, index: 0 });
      i++;
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
      i++;
    } else if (c === 0x22) {
      const end = stringEnd(text, i);
      // A string is a key when it sits in an object and no key is waiting for its value.
      if (top?.keys && top.pendingKey === undefined) {
        // Every write body is scanned: decode a key only when it holds an escape.
        const raw = text.slice(i + 1, end - 1);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw;
        top.pendingKey = key;
        if (top.keys.has(key)) duplicates.push(top.path === '' ? key : `${top.path}.${key}`);
        else top.keys.add(key);
      }
      i = end;
    } else if (c === 0x2c) {
      if (top?.keys) top.pendingKey = undefined;
      else if (top) top.index++;
      i++;
    } else {
      i++;
    }
  }
  return duplicates;
}
