// The list and aggregatedList envelopes GCE answers with: filtered, ordered, paged items, and for aggregated
// lists one entry per scope ("zones/us-central1-a") with a NO_RESULTS_ON_PAGE warning where a scope has none.
import { invalidField } from './api-error.js';
import { parseFilter } from './filter.js';
import { selfLink } from './links.js';
import { page } from './pagination.js';

type Json = Record<string, unknown>;

function ordered(items: Json[], orderBy: string | null): Json[] {
  if (orderBy === null || orderBy === '' || orderBy === 'name') return items;
  if (orderBy === 'creationTimestamp desc') {
    return [...items].sort((a, b) => String(b.creationTimestamp).localeCompare(String(a.creationTimestamp)));
  }
  if (orderBy === 'creationTimestamp')
    return [...items].sort((a, b) => String(a.creationTimestamp).localeCompare(String(b.creationTimestamp)));
  throw invalidField('orderBy', orderBy, "Only 'name' and 'creationTimestamp [desc]' are supported.");
}

/** `items` must already be in name order (GCE's default). */
export function listResponse(kind: string, collectionPath: string, items: Json[], query: URLSearchParams): Json {
  const filter = query.get('filter');
  const matching = ordered(items.filter(parseFilter(filter)), query.get('orderBy'));
  const p = page(matching, `${collectionPath}|${filter ?? ''}|${query.get('orderBy') ?? ''}`, query);
  const out: Json = { kind, id: collectionPath, selfLink: selfLink(collectionPath) };
  if (p.items.length > 0) out.items = p.items;
  if (p.nextPageToken) out.nextPageToken = p.nextPageToken;
  return out;
}

/**
 * An aggregatedList: `entries` (scope + item, in scope then name order) are filtered and paged as one
 * sequence, then grouped by scope under `field`.
 */
export function aggregatedResponse(
  kind: string,
  project: string,
  collection: string,
  field: string,
  entries: { scope: string; item: Json }[],
  scopes: string[],
  query: URLSearchParams,
): Json {
  const filter = query.get('filter');
  const pred = parseFilter(filter);
  const path = `projects/${project}/aggregated/${collection}`;
  const p = page(
    entries.filter((e) => pred(e.item)),
    `${path}|${filter ?? ''}`,
    query,
  );
  const items: Record<string, Json> = {};
  for (const scope of scopes) {
    const mine = p.items.filter((e) => e.scope === scope).map((e) => e.item);
    items[scope] =
      mine.length > 0
        ? { [field]: mine }
        : {
            warning: {
              code: 'NO_RESULTS_ON_PAGE',
              message: `There are no results for scope '${scope}' on this page.`,
              data: [{ key: 'scope', value: scope }],
            },
          };
  }
  const out: Json = { kind, id: path, items, selfLink: selfLink(path) };
  if (p.nextPageToken) out.nextPageToken = p.nextPageToken;
  return out;
}
