// The shape most EC2 Describe* actions share: the filters are checked first, then MaxResults, DryRun and the
// named ids (each failing with the action's own error), and the answer is one page of what matched, under the
// action's list element, with the nextToken of the page after it.
import type { Ec2ApiError } from '../api-error.js';
import { filterPredicate, readFilters, type FilterFields } from '../filters.js';
import type { Tag } from '../model.js';
import { pageByOffset, readMaxResults } from '../pagination.js';
import type { QueryParams } from '../query-params.js';
import { checkDryRun } from '../validation.js';
import { itemList, opt, type XmlChild } from '../xml.js';
import type { ActionContext } from './action-context.js';
import { selectByIds } from './lookup.js';

/** MaxResults' accepted range for the action, and the page size when the caller sends none. */
export interface MaxResultsRange {
  min: number;
  max: number;
  fallback: number;
}

/** What most Describe* actions accept: 5 to 1000, a page of 1000 when unset. */
const MOST_ACTIONS_MAX_RESULTS: MaxResultsRange = { min: 5, max: 1000, fallback: 1000 };

/** The page size a call asks for through MaxResults, checked against the action's range. */
export function readPageSize(params: QueryParams, range: MaxResultsRange = MOST_ACTIONS_MAX_RESULTS): number {
  return readMaxResults(params.int('MaxResults'), range.min, range.max, range.fallback);
}

/** Describing by the ids a caller names: every one must exist, or the call fails with `notFound`. */
export interface ById<T> {
  /** The query parameter naming the ids, e.g. `SubnetId`. */
  param: string;
  idOf: (x: T) => string;
  notFound: (missing: string[]) => Ec2ApiError;
}

export interface DescribeListing<T> {
  all: readonly T[];
  filters: FilterFields<T>;
  /** For tagged resources: makes `tag:<key>`, `tag-key` and `tag-value` filters work. */
  tagsOf?: (x: T) => readonly Tag[];
  /** Default: 5 to 1000, a page of 1000 when unset, as most Describe* actions. */
  maxResults?: MaxResultsRange;
  /** False for the actions whose API has no DryRun parameter; default true. */
  dryRun?: boolean;
  byId?: ById<T>;
  /** Narrows the selection further before the filters apply (group names, image owners); may throw. */
  narrow?: (selected: T[]) => T[];
  /** Binds a NextToken to this kind of listing, so another action's token is refused. */
  tokenKind: string;
  /** The list element of the answer, e.g. `subnetSet`. */
  setName: string;
  render: (x: T) => XmlChild;
}

export function describeListing<T>({ params }: ActionContext, listing: DescribeListing<T>): XmlChild {
  const predicate = filterPredicate(readFilters(params), listing.filters, listing.tagsOf);
  const pageSize = readPageSize(params, listing.maxResults);
  if (listing.dryRun ?? true) checkDryRun(params);
  const { byId } = listing;
  const selected = byId
    ? selectByIds(listing.all, params.list(byId.param), byId.idOf, byId.notFound)
    : [...listing.all];
  const narrowed = listing.narrow ? listing.narrow(selected) : selected;
  const { page, nextToken } = pageByOffset(
    narrowed.filter(predicate),
    listing.tokenKind,
    params.get('NextToken'),
    pageSize,
  );
  return [itemList(listing.setName, page, listing.render), opt('nextToken', nextToken)];
}
