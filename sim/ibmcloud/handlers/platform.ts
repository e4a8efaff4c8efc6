// Platform services beside VPC: Resource Manager v2 resource groups and Global Tagging v3 user tags.
import { badField, badParameter, missingField } from '../api-error.js';
import { instanceCrn } from '../vpc-state.js';
import { ok, type HandlerRequest, type Route } from './context.js';

const TAG_RE = /^[A-Za-z0-9 _.:@-]{1,128}$/;

function listResourceGroups(req: HandlerRequest) {
  const { query, st } = req;
  const w = st.world;
  const account = query.get('account_id');
  const name = query.get('name');
  // Another account's groups are simply not visible to these credentials.
  const groups =
    account !== null && account !== w.accountId ? [] : w.resourceGroups.filter((g) => name === null || g.name === name);
  return ok({
    resources: [...groups]
      .sort((a, b) => a.seq - b.seq)
      .map((g) => ({
        id: g.id,
        crn: `crn:v1:bluemix:public:resource-controller::a/${w.accountId}::resource-group:${g.id}`,
        account_id: w.accountId,
        name: g.name,
        state: 'ACTIVE',
        default: g.default,
        enable_reclamation: false,
        quota_id: 'a3d7b8d01e261c24677937c29ab33f3c',
        quota_url: '/v2/quota_definitions/a3d7b8d01e261c24677937c29ab33f3c',
        payment_methods_url: `/v2/resource_groups/${g.id}/payment_methods`,
        resource_linkages: [],
        teams_url: `/v2/resource_groups/${g.id}/teams`,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      })),
  });
}

function attachTags(req: HandlerRequest) {
  const { st, query } = req;
  const tagType = query.get('tag_type') ?? 'user';
  if (tagType !== 'user') throw badParameter('tag_type', `Only user tags are emulated, not ${tagType}.`);
  const body = (req.body && typeof req.body === 'object' ? req.body : {}) as {
    resources?: unknown;
    tag_names?: unknown;
    tag_name?: unknown;
  };
  if (!Array.isArray(body.resources) || body.resources.length === 0) throw missingField('resources');
  const names: unknown[] = Array.isArray(body.tag_names)
    ? body.tag_names
    : body.tag_name !== undefined
      ? [body.tag_name]
      : [];
  if (names.length === 0) throw missingField('tag_names');
  const tags = names.map((n, i) => {
    if (typeof n !== 'string' || !TAG_RE.test(n)) {
      throw badField(
        `tag_names[${i}]`,
        `Tag names are 1-128 characters of letters, digits, spaces and _ . : @ -, got ${JSON.stringify(n)}.`,
      );
    }
    // IBM stores user tags in lower case.
    return n.trim().toLowerCase();
  });
  const known = new Set(st.world.instances.map((i) => instanceCrn(st.world, i)));
  const results = body.resources.map((r: unknown) => {
    const id = r && typeof r === 'object' ? (r as { resource_id?: unknown }).resource_id : undefined;
    if (typeof id !== 'string' || !known.has(id)) {
      return {
        resource_id: typeof id === 'string' ? id : '',
        is_error: true,
        message: 'The resource is not found or not accessible.',
      };
    }
    const current = new Set(st.world.tags[id] ?? []);
    for (const t of tags) current.add(t);
    st.world.tags[id] = [...current].sort();
    return { resource_id: id, is_error: false };
  });
  st.changed();
  return ok({ results });
}

function listTags(req: HandlerRequest) {
  const { query, st } = req;
  const attachedTo = query.get('attached_to');
  const offset = Number(query.get('offset') ?? '0');
  const limit = Number(query.get('limit') ?? '100');
  if (!Number.isInteger(offset) || offset < 0) throw badParameter('offset', 'offset must be a non-negative integer.');
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw badParameter('limit', 'limit must be an integer from 1 to 1000.');
  const all =
    attachedTo !== null ? (st.world.tags[attachedTo] ?? []) : [...new Set(Object.values(st.world.tags).flat())].sort();
  return ok({
    total_count: all.length,
    offset,
    limit,
    items: all.slice(offset, offset + limit).map((name) => ({ name })),
  });
}

export const RESOURCE_MANAGER_ROUTES: Route[] = [
  { method: 'GET', path: '/v2/resource_groups', action: 'ListResourceGroups', handler: listResourceGroups },
];

export const TAGGING_ROUTES: Route[] = [
  { method: 'POST', path: '/v3/tags/attach', action: 'AttachTag', handler: attachTags },
  { method: 'GET', path: '/v3/tags', action: 'ListTags', handler: listTags },
];
