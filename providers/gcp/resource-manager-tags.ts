// Resource Manager tags for instances: the spec's tags plus the Infrastructure's, resolved from their
// namespaced names ("{parentID}/{key}/{value}") to the tagKeys/{id} → tagValues/{id} bindings GCE wants.
// Resolutions are cached (tags are long-lived), so a thousand Machines cost one look-up per distinct tag.
import { PassThroughClient, GoogleAuth, type AuthClient } from 'google-auth-library';
import { InvalidMachineConfigurationError, isLoopbackUrl, TtlCache, type Clock } from '../../lib/index.js';
import { authClientFor } from './auth-client.js';
import { gceHttpStatus } from './errors.js';
import { credentialsFingerprint, type GcpCredentials } from './credentials.js';
import { PROVIDER_SPEC_PATH, type ResourceManagerTag } from './provider-spec.js';

export const DEFAULT_RESOURCE_MANAGER_ENDPOINT = 'https://cloudresourcemanager.googleapis.com';
export const MAX_TAGS = 50;

export interface TagValue {
  /** "tagValues/{id}" */
  name: string;
  /** "tagKeys/{id}" */
  parent: string;
}

/** Looks a tag value up by namespaced name; undefined = it does not exist or we may not see it. */
export type TagValueLookup = (
  namespacedName: string,
  credentials: GcpCredentials | undefined,
  signal: AbortSignal,
) => Promise<TagValue | undefined>;

/** The spec's tags, then the Infrastructure's whose (parentID, key) the spec does not already set. */
export function mergeTags(
  spec: ResourceManagerTag[] | undefined,
  infrastructure: ResourceManagerTag[] = [],
): ResourceManagerTag[] {
  const out = [...(spec ?? [])];
  for (const t of infrastructure) if (!out.some((x) => x.parentID === t.parentID && x.key === t.key)) out.push(t);
  return out;
}

/** A lookup over the Resource Manager v3 REST API (tagValues/namespaced). */
export function restTagValueLookup(opts: { endpoint?: string } = {}): TagValueLookup {
  const base = opts.endpoint ?? DEFAULT_RESOURCE_MANAGER_ENDPOINT;
  const auths = new Map<string, AuthClient | GoogleAuth | PassThroughClient>();
  const plain = base.startsWith('http://');
  const authFor = (c: GcpCredentials | undefined) => {
    // Tokens never travel unencrypted over a network: plain http gets the Secret's credentials only on this
    // host (an emulator on loopback), as self-signed JWTs (no token endpoint), and never the environment's.
    const signs = plain && c?.type === 'service_account' && isLoopbackUrl(base);
    const key = plain && !signs ? 'plain' : `${c?.clientEmail ?? 'default'}/${credentialsFingerprint(c)}`;
    let a = auths.get(key);
    if (!a) {
      if (signs && c) a = authClientFor(c);
      else if (plain) a = new PassThroughClient();
      else a = new GoogleAuth({ credentials: c?.json, scopes: ['https://www.googleapis.com/auth/cloud-platform'] });
      auths.set(key, a);
    }
    return a;
  };
  return async (namespacedName, credentials, signal) => {
    const url = `${base}/v3/tagValues/namespaced?name=${encodeURIComponent(namespacedName)}`;
    try {
      const res = await authFor(credentials).request<{ name?: string; parent?: string }>({ url, signal });
      if (!res.data.name || !res.data.parent) return undefined;
      return { name: res.data.name, parent: res.data.parent };
    } catch (err) {
      const status = gceHttpStatus(err);
      if (status === 403 || status === 404) return undefined;
      throw err;
    }
  };
}

export class TagResolver {
  private readonly cache: TtlCache<TagValue | null>;

  constructor(
    private readonly lookup: TagValueLookup,
    clock: Clock,
    ttlMs = 3_600_000,
  ) {
    this.cache = new TtlCache(clock, ttlMs);
  }

  /** The tagKeys → tagValues map for instance params, or undefined when there are no tags. */
  async resolve(
    tags: ResourceManagerTag[],
    credentials: GcpCredentials | undefined,
    signal: AbortSignal,
  ): Promise<Record<string, string> | undefined> {
    if (tags.length === 0) return undefined;
    if (tags.length > MAX_TAGS) {
      throw new InvalidMachineConfigurationError(
        `at most ${MAX_TAGS} tags can be added to a compute instance; infrastructure resourceTags and ${PROVIDER_SPEC_PATH}.resourceManagerTags together have ${tags.length}`,
        { field: `${PROVIDER_SPEC_PATH}.resourceManagerTags` },
      );
    }
    const out: Record<string, string> = {};
    const missing: string[] = [];
    for (const t of tags) {
      const name = `${t.parentID}/${t.key}/${t.value}`;
      let v = this.cache.get(name);
      if (v === undefined) {
        v = (await this.lookup(name, credentials, signal)) ?? null;
        // A missing tag may be created any minute: remember only found ones.
        if (v) this.cache.set(name, v);
      }
      if (v) out[v.parent] = v.name;
      else missing.push(name);
    }
    if (missing.length > 0) {
      throw new InvalidMachineConfigurationError(
        `[${missing.join(', ')}] tag(s) do not exist or the credentials may not access them`,
        {
          field: `${PROVIDER_SPEC_PATH}.resourceManagerTags`,
        },
      );
    }
    return out;
  }
}
