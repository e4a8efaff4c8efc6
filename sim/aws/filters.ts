// EC2 `Filter.N.Name` / `Filter.N.Value.M`: filters are ANDed, values within one filter ORed, and values
// may use the `*` and `?` wildcards (backslash escapes them). `tag:<key>`, `tag-key` and `tag-value` work
// on any tagged resource.
import { RE2JS } from 're2js';
import { invalidParameterValue } from './api-error.js';
import type { Tag } from './model.js';
import type { QueryParams } from './query-params.js';

export interface Filter {
  name: string;
  values: string[];
}

type Extracted = string | number | boolean | undefined | readonly (string | number | boolean | undefined)[];
export type FilterFields<T> = Record<string, (obj: T) => Extracted>;

export function readFilters(params: QueryParams): Filter[] {
  return params.structList('Filter').map((f) => {
    const name = f.get('Name');
    if (!name) throw invalidParameterValue('Each Filter must have a Name');
    const values = f.list('Value');
    if (values.length === 0) throw invalidParameterValue(`The filter '${name}' must have at least one Value`);
    return { name, values };
  });
}

const globCache = new Map<string, RE2JS>();

/**
 * EC2's wildcards: `*` any run, `?` one character, `\` escapes the next. The pattern comes from the request,
 * so it is compiled by RE2 (re2js), which matches in time linear in the value whatever the pattern.
 */
export function globMatch(pattern: string, value: string): boolean {
  let re = globCache.get(pattern);
  if (!re) {
    let src = '';
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern.charAt(i);
      if (c === '\\' && i + 1 < pattern.length) {
        src += RE2JS.quote(pattern.charAt(++i));
      } else if (c === '*') src += '.*';
      else if (c === '?') src += '.';
      else src += RE2JS.quote(c);
    }
    re = RE2JS.compile(src, RE2JS.DOTALL);
    if (globCache.size > 1000) globCache.clear();
    globCache.set(pattern, re);
  }
  return re.testExact(value);
}

function asStrings(x: Extracted): string[] {
  const arr = Array.isArray(x)
    ? (x as readonly (string | number | boolean | undefined)[])
    : [x as string | number | boolean | undefined];
  return arr.filter((v): v is string | number | boolean => v !== undefined).map(String);
}

/** Builds a predicate for the filters; unknown filter names are rejected as real EC2 does. */
export function filterPredicate<T>(
  filters: readonly Filter[],
  fields: FilterFields<T>,
  tagsOf?: (obj: T) => readonly Tag[],
): (obj: T) => boolean {
  const checks = filters.map((f): ((obj: T) => boolean) => {
    const anyMatch = (vals: string[]) => vals.some((v) => f.values.some((p) => globMatch(p, v)));
    if (tagsOf && f.name.startsWith('tag:')) {
      const key = f.name.slice(4);
      return (o) =>
        anyMatch(
          tagsOf(o)
            .filter((t) => t.key === key)
            .map((t) => t.value),
        );
    }
    if (tagsOf && f.name === 'tag-key') return (o) => anyMatch(tagsOf(o).map((t) => t.key));
    if (tagsOf && f.name === 'tag-value') return (o) => anyMatch(tagsOf(o).map((t) => t.value));
    const field = fields[f.name];
    if (!field) throw invalidParameterValue(`The filter '${f.name}' is invalid`);
    return (o) => anyMatch(asStrings(field(o)));
  });
  return (o) => checks.every((c) => c(o));
}
