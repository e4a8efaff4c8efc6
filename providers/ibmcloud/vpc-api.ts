// The narrow set of IBM Cloud calls the actuator and the scale-from-zero catalog make, and its implementation
// on ibm-cloud-sdk-core (the generated `ibm-vpc` SDK is not available to us). Every list follows pagination to
// the end, unlike the reference provider, which reads only the first page of most collections.
import { IamAuthenticator, type AuthenticatorInterface } from 'ibm-cloud-sdk-core';
import type { OutboundAgents } from '../../lib/index.js';
import { accountIdFromAuthenticator, IamErrorAuthenticator } from './iam-token.js';
import { axiosTransport, IbmRestService, type QueryValue } from './ibm-rest-service.js';
import type {
  DedicatedHost,
  DedicatedHostFilter,
  Image,
  ImageFilter,
  InstanceFilter,
  InstanceProfile,
  InstancePrototype,
  Region,
  ResourceGroup,
  ResourceGroupFilter,
  ResourceGroupLookup,
  SecurityGroup,
  SecurityGroupFilter,
  Subnet,
  SubnetFilter,
  TagResult,
  Vpc,
  VpcInstance,
} from './vpc-types.js';

export interface CallOptions {
  signal?: AbortSignal;
}

/** Every method rejects with VpcApiError (or the signal's reason when aborted). */
export interface VpcApi {
  /** The VPC service URL calls go to, ending in /v1. */
  readonly serviceUrl: string;
  /** The same client (sharing the IAM token) against another VPC endpoint, e.g. the region's. */
  withServiceUrl(serviceUrl: string): VpcApi;
  /** The account the credentials belong to (IAM token claim account.bss), e.g. for the providerID. */
  getAccountId(o?: CallOptions): Promise<string>;

  getRegion(name: string, o?: CallOptions): Promise<Region>;
  /** All matching instances, every page. With only vpcId it is a batched existence check for a cluster. */
  listInstances(filter: InstanceFilter, o?: CallOptions): Promise<VpcInstance[]>;
  getInstance(id: string, o?: CallOptions): Promise<VpcInstance>;
  /** Not retried by the client: the VPC refuses a second instance of the same name in a VPC (409). */
  createInstance(prototype: InstancePrototype, o?: CallOptions): Promise<VpcInstance>;
  deleteInstance(id: string, o?: CallOptions): Promise<void>;
  getInstanceProfile(name: string, o?: CallOptions): Promise<InstanceProfile>;
  listInstanceProfiles(o?: CallOptions): Promise<InstanceProfile[]>;
  listVpcs(filter?: ResourceGroupFilter, o?: CallOptions): Promise<Vpc[]>;
  listImages(filter?: ImageFilter, o?: CallOptions): Promise<Image[]>;
  listSubnets(filter?: SubnetFilter, o?: CallOptions): Promise<Subnet[]>;
  listSecurityGroups(filter?: SecurityGroupFilter, o?: CallOptions): Promise<SecurityGroup[]>;
  listDedicatedHosts(filter?: DedicatedHostFilter, o?: CallOptions): Promise<DedicatedHost[]>;

  /** Resource Manager v2. */
  listResourceGroups(lookup: ResourceGroupLookup, o?: CallOptions): Promise<ResourceGroup[]>;

  /**
   * Global Tagging: attaches user tags ("key:value" or "label") to resources by CRN, creating the tags if
   * needed. Resolves the per-resource outcome; a resource-level failure is not a rejection.
   */
  attachTags(resourceCrns: string[], tagNames: string[], o?: CallOptions): Promise<TagResult[]>;
  /** The user tag names attached to a resource. */
  listAttachedTags(resourceCrn: string, o?: CallOptions): Promise<string[]>;
}

export const DEFAULT_VPC_URL = 'https://us-south.iaas.cloud.ibm.com/v1';
export const DEFAULT_IAM_URL = 'https://iam.cloud.ibm.com';
export const DEFAULT_RESOURCE_MANAGER_URL = 'https://resource-controller.cloud.ibm.com';
export const DEFAULT_GLOBAL_TAGGING_URL = 'https://tags.global-search-tagging.cloud.ibm.com';
/** The API date of vpc-go-sdk v0.78.1, which the reference provider vendors. */
export const DEFAULT_VPC_API_VERSION = '2025-12-16';

export interface VpcClientOptions {
  /** VPC base URL; a missing "/v1" is appended. Default https://us-south.iaas.cloud.ibm.com/v1. */
  serviceUrl?: string;
  /** Use this authenticator (e.g. NoAuthAuthenticator in tests) instead of IAM with apiKey. */
  authenticator?: AuthenticatorInterface;
  /** The IAM API key (credentials secret key `ibmcloud_api_key`). Required unless authenticator is given. */
  apiKey?: string;
  /** IAM base URL; the token service is <iamUrl>/identity/token. */
  iamUrl?: string;
  resourceManagerUrl?: string;
  globalTaggingUrl?: string;
  /** The VPC API date sent as `version`. */
  version?: string;
  /** Page size asked for on paged VPC collections (1–100). Default 100, the API maximum. */
  pageSize?: number;
  /** Per-request timeout. Default 60 s. */
  timeoutMs?: number;
  /** The account id when the authenticator carries no IAM token (NoAuthAuthenticator). */
  accountId?: string;
  /** Proxy- and CA-aware agents for the VPC, IAM, Resource Manager and Global Tagging calls. */
  agents?: OutboundAgents;
}

export class VpcClientConfigError extends Error {
  override readonly name = 'VpcClientConfigError';
}

/** Trailing slashes removed and "/v1" appended when the URL does not already end with it. */
export function normalizeVpcServiceUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new VpcClientConfigError(`serviceUrl: must be an absolute http(s) URL, got "${url}"`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') {
    throw new VpcClientConfigError(`serviceUrl: must be an http(s) URL, got protocol "${u.protocol}"`);
  }
  const base = url.replace(/\/+$/, '');
  return /\/v1$/.test(base) ? base : `${base}/v1`;
}

function checkUrl(field: string, url: string): string {
  try {
    const u = new URL(url);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('protocol');
  } catch {
    throw new VpcClientConfigError(`${field}: must be an absolute http(s) URL, got "${url}"`);
  }
  return url.replace(/\/+$/, '');
}

interface ResolvedOptions {
  serviceUrl: string;
  authenticator: AuthenticatorInterface;
  resourceManagerUrl: string;
  globalTaggingUrl: string;
  version: string;
  pageSize: number;
  timeoutMs: number;
  accountId?: string;
  agents?: OutboundAgents;
}

function resolve(opts: VpcClientOptions): ResolvedOptions {
  const version = opts.version ?? DEFAULT_VPC_API_VERSION;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(version))
    throw new VpcClientConfigError(`version: must be a date YYYY-MM-DD, got "${version}"`);
  const pageSize = opts.pageSize ?? 100;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
    throw new VpcClientConfigError(`pageSize: must be an integer from 1 to 100, got ${pageSize}`);
  }
  const timeoutMs = opts.timeoutMs ?? 60_000;
  if (!(timeoutMs > 0)) throw new VpcClientConfigError(`timeoutMs: must be > 0, got ${timeoutMs}`);
  let authenticator = opts.authenticator;
  if (!authenticator) {
    if (typeof opts.apiKey !== 'string' || opts.apiKey === '') {
      throw new VpcClientConfigError('apiKey: required (a non-empty IAM API key) when no authenticator is given');
    }
    const iamUrl = checkUrl('iamUrl', opts.iamUrl ?? DEFAULT_IAM_URL);
    try {
      authenticator = new IamAuthenticator({ apikey: opts.apiKey, url: iamUrl, ...axiosTransport(opts.agents) });
    } catch (err) {
      // The SDK's message names the problem (quotes or braces around the key) without echoing the key.
      throw new VpcClientConfigError(
        `apiKey: ${err instanceof Error ? err.message : 'rejected by the IAM authenticator'}`,
      );
    }
  }
  return {
    serviceUrl: normalizeVpcServiceUrl(opts.serviceUrl ?? DEFAULT_VPC_URL),
    authenticator:
      authenticator instanceof IamErrorAuthenticator ? authenticator : new IamErrorAuthenticator(authenticator),
    resourceManagerUrl: checkUrl('resourceManagerUrl', opts.resourceManagerUrl ?? DEFAULT_RESOURCE_MANAGER_URL),
    globalTaggingUrl: checkUrl('globalTaggingUrl', opts.globalTaggingUrl ?? DEFAULT_GLOBAL_TAGGING_URL),
    version,
    pageSize,
    timeoutMs,
    accountId: opts.accountId,
    agents: opts.agents,
  };
}

export function createVpcClient(opts: VpcClientOptions): VpcApi {
  return new VpcClient(resolve(opts));
}

class VpcClient implements VpcApi {
  private readonly vpc: IbmRestService;
  private readonly rm: IbmRestService;
  private readonly tagging: IbmRestService;

  constructor(private readonly o: ResolvedOptions) {
    const common = { authenticator: o.authenticator, timeoutMs: o.timeoutMs, agents: o.agents };
    this.vpc = new IbmRestService({
      ...common,
      service: 'vpc',
      serviceUrl: o.serviceUrl,
      fixedQuery: { version: o.version, generation: 2 },
    });
    this.rm = new IbmRestService({ ...common, service: 'resource-manager', serviceUrl: o.resourceManagerUrl });
    this.tagging = new IbmRestService({ ...common, service: 'global-tagging', serviceUrl: o.globalTaggingUrl });
  }

  get serviceUrl(): string {
    return this.vpc.serviceUrl;
  }

  withServiceUrl(serviceUrl: string): VpcApi {
    return new VpcClient({ ...this.o, serviceUrl: normalizeVpcServiceUrl(serviceUrl) });
  }

  async getAccountId(_o?: CallOptions): Promise<string> {
    if (this.o.accountId) return this.o.accountId;
    return accountIdFromAuthenticator(this.o.authenticator);
  }

  /** A call on one VPC resource, named in the path by its `{id}` or `{name}` (which must be non-empty). */
  private async onOne<T>(
    operation: string,
    method: 'GET' | 'DELETE',
    path: string,
    key: 'id' | 'name',
    value: string,
    o?: CallOptions,
  ): Promise<T> {
    return this.vpc.call({
      operation,
      method,
      path: `${path}/{${key}}`,
      pathParams: { [key]: required(key, value) },
      signal: o?.signal,
    });
  }

  /** A paged VPC collection, every page, the configured page size each; the path and items key are its name. */
  private async listCollection<T>(
    operation: string,
    collection: string,
    query: Record<string, QueryValue>,
    o?: CallOptions,
  ): Promise<T[]> {
    return this.vpc.listAll({
      operation,
      path: `/${collection}`,
      itemsKey: collection,
      limit: this.o.pageSize,
      query,
      signal: o?.signal,
    });
  }

  async getRegion(name: string, o?: CallOptions): Promise<Region> {
    return this.onOne('getRegion', 'GET', '/regions', 'name', name, o);
  }

  async listInstances(f: InstanceFilter, o?: CallOptions): Promise<VpcInstance[]> {
    const query = { name: f.name, 'vpc.id': f.vpcId, 'vpc.name': f.vpcName, 'resource_group.id': f.resourceGroupId };
    return this.listCollection('listInstances', 'instances', query, o);
  }

  async getInstance(id: string, o?: CallOptions): Promise<VpcInstance> {
    return this.onOne('getInstance', 'GET', '/instances', 'id', id, o);
  }

  async createInstance(prototype: InstancePrototype, o?: CallOptions): Promise<VpcInstance> {
    return this.vpc.call({
      operation: 'createInstance',
      method: 'POST',
      path: '/instances',
      body: prototype,
      signal: o?.signal,
    });
  }

  async deleteInstance(id: string, o?: CallOptions): Promise<void> {
    await this.onOne('deleteInstance', 'DELETE', '/instances', 'id', id, o);
  }

  async getInstanceProfile(name: string, o?: CallOptions): Promise<InstanceProfile> {
    return this.onOne('getInstanceProfile', 'GET', '/instance/profiles', 'name', name, o);
  }

  async listInstanceProfiles(o?: CallOptions): Promise<InstanceProfile[]> {
    // The profile collection is not paged by the API (no limit parameter); listAll still honours a `next`.
    return this.vpc.listAll({
      operation: 'listInstanceProfiles',
      path: '/instance/profiles',
      itemsKey: 'profiles',
      signal: o?.signal,
    });
  }

  async listVpcs(f: ResourceGroupFilter = {}, o?: CallOptions): Promise<Vpc[]> {
    return this.listCollection('listVpcs', 'vpcs', { 'resource_group.id': f.resourceGroupId }, o);
  }

  async listImages(f: ImageFilter = {}, o?: CallOptions): Promise<Image[]> {
    return this.listCollection(
      'listImages',
      'images',
      { name: f.name, visibility: f.visibility, 'resource_group.id': f.resourceGroupId },
      o,
    );
  }

  async listSubnets(f: SubnetFilter = {}, o?: CallOptions): Promise<Subnet[]> {
    return this.listCollection(
      'listSubnets',
      'subnets',
      { 'resource_group.id': f.resourceGroupId, 'vpc.id': f.vpcId, 'zone.name': f.zoneName },
      o,
    );
  }

  async listSecurityGroups(f: SecurityGroupFilter = {}, o?: CallOptions): Promise<SecurityGroup[]> {
    return this.listCollection(
      'listSecurityGroups',
      'security_groups',
      { 'resource_group.id': f.resourceGroupId, 'vpc.id': f.vpcId },
      o,
    );
  }

  async listDedicatedHosts(f: DedicatedHostFilter = {}, o?: CallOptions): Promise<DedicatedHost[]> {
    return this.listCollection(
      'listDedicatedHosts',
      'dedicated_hosts',
      { 'resource_group.id': f.resourceGroupId, 'zone.name': f.zoneName, name: f.name },
      o,
    );
  }

  async listResourceGroups(lookup: ResourceGroupLookup, o?: CallOptions): Promise<ResourceGroup[]> {
    return this.rm.listAll({
      operation: 'listResourceGroups',
      path: '/v2/resource_groups',
      itemsKey: 'resources',
      query: { account_id: lookup.accountId, name: lookup.name },
      signal: o?.signal,
    });
  }

  async attachTags(resourceCrns: string[], tagNames: string[], o?: CallOptions): Promise<TagResult[]> {
    if (resourceCrns.length === 0)
      throw new VpcClientConfigError('attachTags: resourceCrns must name at least one resource');
    if (tagNames.length === 0) throw new VpcClientConfigError('attachTags: tagNames must name at least one tag');
    const res = await this.tagging.call<{ results?: TagResult[] }>({
      operation: 'attachTags',
      method: 'POST',
      path: '/v3/tags/attach',
      query: { tag_type: 'user' },
      body: { resources: resourceCrns.map((resource_id) => ({ resource_id })), tag_names: tagNames },
      signal: o?.signal,
    });
    return res?.results ?? [];
  }

  async listAttachedTags(resourceCrn: string, o?: CallOptions): Promise<string[]> {
    // Global Tagging pages by offset/limit and reports total_count, unlike VPC's start tokens.
    const names: string[] = [];
    const limit = 1000;
    for (let offset = 0; ; offset += limit) {
      const page = await this.tagging.call<{ items?: { name: string }[]; total_count?: number }>({
        operation: 'listAttachedTags',
        method: 'GET',
        path: '/v3/tags',
        query: { attached_to: required('resourceCrn', resourceCrn), tag_type: 'user', offset, limit },
        signal: o?.signal,
      });
      const items = page?.items ?? [];
      names.push(...items.map((i) => i.name));
      if (items.length < limit || names.length >= (page?.total_count ?? 0)) return names;
    }
  }
}

function required(field: string, value: string): string {
  if (typeof value !== 'string' || value === '') throw new VpcClientConfigError(`${field}: must be a non-empty string`);
  return value;
}
