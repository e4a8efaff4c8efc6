import { expect } from 'chai';
import { NoAuthAuthenticator } from 'ibm-cloud-sdk-core';
import type { FakeClock } from '../../../lib/base/fake-clock.js';
import { IAM_TOKEN_ACTION, VIEW_LIST, type IbmVpcEmulator } from '../../../sim/ibmcloud/index.js';
import {
  createVpcClient,
  normalizeVpcServiceUrl,
  VpcClientConfigError,
  type VpcApi,
} from '../../../providers/ibmcloud/vpc-api.js';
import { apiError, clientFor, eventually, startEmulator, workerPrototype } from './ibm-test-env.js';

describe('IBM VPC client (VpcApi) against the emulator', () => {
  let emu: IbmVpcEmulator;
  let clock: FakeClock;
  let api: VpcApi;

  beforeEach(async () => {
    ({ emu, clock } = await startEmulator());
    api = clientFor(emu);
  });
  afterEach(async () => {
    await emu.stop();
  });

  describe('IAM', () => {
    it('reads the account id from the IAM token claim account.bss', async () => {
      expect(await api.getAccountId()).to.equal(emu.accountId);
    });

    it('fetches one token and reuses it across calls of every service', async () => {
      await api.getAccountId();
      await api.listInstanceProfiles();
      await api.listVpcs();
      await api.listResourceGroups({ accountId: emu.accountId });
      await api.listInstances({ vpcName: `${emu.clusterId}-vpc` });
      await api.withServiceUrl(emu.endpoint).getRegion(emu.region);
      expect(emu.knobs.counts(IAM_TOKEN_ACTION).total).to.equal(1);
    });

    it('reports a rejected API key as an IAM error without echoing the key', async () => {
      const bad = clientFor(emu, { apiKey: 'not-the-key-123' });
      const err = await apiError(bad.listVpcs(), 400, 'BXNIM0415E');
      expect(err.service).to.equal('iam');
      expect(err.operation).to.equal('getToken');
      expect(err.message).to.not.contain('not-the-key-123');
      expect(emu.knobs.counts('ListVpcs').total, 'no VPC call without a token').to.equal(0);
    });

    it('reports a failing token service as an IAM error, and fetches a token on the next call', async () => {
      emu.knobs.failNext(IAM_TOKEN_ACTION, 1);
      const err = await apiError(api.listVpcs(), 500, 'internal_error');
      expect(err).to.include({ service: 'iam', operation: 'getToken' });
      expect(await api.listVpcs()).to.have.length(1);
      expect(emu.knobs.counts(IAM_TOKEN_ACTION).total).to.equal(2);
    });

    it('surfaces a revoked token as 401 not_authorized from the VPC, without the token in the message', async () => {
      await api.listVpcs();
      emu.revokeTokens();
      const err = await apiError(api.listVpcs(), 401, 'not_authorized');
      expect(err.service).to.equal('vpc');
      expect(err.message).to.not.match(/eyJ/);
      expect(err.trace).to.match(/^[0-9a-f-]{36}$/);
    });

    it('gets 401 from every service when no token is sent', async () => {
      const anon = createVpcClient({
        serviceUrl: emu.endpoint,
        authenticator: new NoAuthAuthenticator(),
        resourceManagerUrl: emu.resourceManagerEndpoint,
        globalTaggingUrl: emu.globalTaggingEndpoint,
        accountId: emu.accountId,
      });
      await apiError(anon.getRegion(emu.region), 401, 'not_authorized');
      const rm = await apiError(anon.listResourceGroups({}), 401, 'not_authorized');
      expect(rm.service).to.equal('resource-manager');
      expect(await anon.getAccountId(), 'a configured account id needs no token').to.equal(emu.accountId);
    });
  });

  describe('instances', () => {
    it('creates an instance, finds it by name and VPC name, by VPC id and by id, and deletes it', async () => {
      const created = await api.createInstance(workerPrototype(emu, 'worker-a'));
      expect(created.status).to.equal('pending');
      expect(created.id).to.match(/^0717_/);
      expect(created.primary_network_interface?.primary_ip?.address).to.equal('0.0.0.0');

      const byName = await api.listInstances({ name: 'worker-a', vpcName: `${emu.clusterId}-vpc` });
      expect(byName.map((i) => i.id)).to.deep.equal([created.id]);
      const byVpc = await api.listInstances({ vpcId: created.vpc.id });
      expect(byVpc.map((i) => i.name)).to.deep.equal(['worker-a']);
      expect(await api.listInstances({ name: 'worker-a', vpcName: 'other-vpc' })).to.deep.equal([]);
      expect((await api.listInstances({ resourceGroupId: created.resource_group.id })).map((i) => i.id)).to.deep.equal([
        created.id,
      ]);
      expect(await api.listInstances({ resourceGroupId: 'another-group' })).to.deep.equal([]);

      clock.step(100);
      clock.step(400);
      const running = await api.getInstance(created.id);
      expect(running.status).to.equal('running');
      expect(running.primary_network_interface?.primary_ip?.address).to.match(/^10\.241\.1\.\d+$/);
      expect(running.profile.name).to.equal('bx2-4x16');
      expect(running.vcpu).to.deep.include({ architecture: 'amd64', count: 4 });
      expect(Date.parse(running.created_at)).to.equal(clock.now() - 500);

      await api.deleteInstance(created.id);
      expect((await api.getInstance(created.id)).status).to.equal('deleting');
      clock.step(300);
      await apiError(api.getInstance(created.id), 404, 'not_found');
      expect(await api.listInstances({ name: 'worker-a' })).to.deep.equal([]);
    });

    it('refuses a second instance of the same name in the VPC with 409, so a retried create cannot double', async () => {
      await api.createInstance(workerPrototype(emu, 'worker-dup'));
      const err = await apiError(
        api.createInstance(workerPrototype(emu, 'worker-dup')),
        409,
        'validation_unique_failed',
      );
      expect(err.target).to.equal('name');
      expect(emu.instances()).to.have.length(1);
    });

    it('rejects an unknown profile with 404 naming the field', async () => {
      const err = await apiError(
        api.createInstance(workerPrototype(emu, 'w', { profile: { name: 'bx9-1x1' } })),
        404,
        'not_found',
      );
      expect(err.target).to.equal('profile.name');
      expect(err.operation).to.equal('createInstance');
    });

    it('pages through every instance of a VPC, following next.start until the last page', async () => {
      for (let i = 0; i < 7; i++) await api.createInstance(workerPrototype(emu, `worker-${i}`));
      const small = clientFor(emu, { pageSize: 2 });
      emu.knobs.resetCounters();
      const all = await small.listInstances({ vpcId: emu.world.vpcs[0]?.id });
      expect(all.map((i) => i.name)).to.deep.equal([0, 1, 2, 3, 4, 5, 6].map((i) => `worker-${i}`));
      expect(emu.knobs.counts('ListInstances').total, 'four pages of at most two').to.equal(4);
    });

    it('deleting an instance twice while it is deleting is accepted', async () => {
      const inst = await api.createInstance(workerPrototype(emu, 'worker-del'));
      await api.deleteInstance(inst.id);
      await api.deleteInstance(inst.id);
      clock.step(300);
      await apiError(api.deleteInstance(inst.id), 404, 'not_found');
    });
  });

  describe('catalog and network lookups', () => {
    it('resolves the region endpoint, and a client for it (with /v1 appended) keeps working', async () => {
      const region = await api.getRegion(emu.region);
      expect(region).to.deep.include({ name: 'us-south', status: 'available' });
      const regional = api.withServiceUrl(region.endpoint);
      expect(regional.serviceUrl).to.equal(emu.endpoint);
      expect((await regional.listVpcs()).map((v) => v.name)).to.deep.equal([`${emu.clusterId}-vpc`]);
      const err = await apiError(api.getRegion('eu-nowhere'), 404, 'not_found');
      expect(err).to.include({ service: 'vpc', operation: 'getRegion' });
    });

    it('describes profiles with vCPU, memory, GPU and architecture', async () => {
      const all = await api.listInstanceProfiles();
      expect(all.map((p) => p.name)).to.include.members([
        'bx2-2x8',
        'bx2-4x16',
        'cx2-8x16',
        'mx2-4x32',
        'gx2-8x64x1v100',
        'gx3-16x80x1l4',
        'bz2-4x16',
      ]);
      const v100 = await api.getInstanceProfile('gx2-8x64x1v100');
      expect(v100.vcpu_count).to.deep.equal({ type: 'fixed', value: 8 });
      expect(v100.memory).to.deep.equal({ type: 'fixed', value: 64 });
      expect(v100.gpu_count).to.deep.equal({ type: 'fixed', value: 1 });
      expect(v100.gpu_manufacturer?.values).to.deep.equal(['nvidia']);
      expect(v100.gpu_model?.values).to.deep.equal(['Tesla V100']);
      expect((await api.getInstanceProfile('gx3-16x80x1l4')).gpu_model?.values).to.deep.equal(['L4']);
      const z = await api.getInstanceProfile('bz2-4x16');
      expect(z.vcpu_architecture.value).to.equal('s390x');
      expect(z.os_architecture.values).to.deep.equal(['s390x']);
      expect((await api.getInstanceProfile('bx2-4x16')).gpu_count).to.equal(undefined);
      await apiError(api.getInstanceProfile('nope-1x1'), 404, 'not_found');
    });

    it('finds images, VPCs, subnets (across pages), security groups and dedicated hosts by resource group', async () => {
      const infra = emu.clusterId;
      const [rg] = await api.listResourceGroups({ accountId: await api.getAccountId(), name: infra });
      expect(rg).to.include({ name: infra, state: 'ACTIVE', account_id: emu.accountId });
      const rgId = rg?.id;

      const images = await api.listImages({ visibility: 'private', resourceGroupId: rgId, name: `${infra}-rhcos` });
      expect(images.map((i) => i.name)).to.deep.equal([`${infra}-rhcos`]);
      expect(await api.listImages({ visibility: 'private', name: 'ibm-redhat-9-4-minimal-amd64-1' })).to.deep.equal([]);

      const vpcs = await api.listVpcs({ resourceGroupId: rgId });
      expect(vpcs.map((v) => v.name)).to.deep.equal([`${infra}-vpc`]);

      const paged = clientFor(emu, { pageSize: 4 });
      emu.knobs.resetCounters();
      const subnets = await paged.listSubnets({ resourceGroupId: rgId });
      expect(subnets).to.have.length(6);
      expect(emu.knobs.counts('ListSubnets').total).to.equal(2);
      expect(subnets.map((s) => s.name)).to.include(`${infra}-subnet-compute-us-south-2`);
      expect(
        (await api.listSubnets({ vpcId: vpcs[0]?.id, zoneName: 'us-south-3' })).map((s) => s.zone.name),
      ).to.deep.equal(['us-south-3', 'us-south-3']);

      const sgs = await api.listSecurityGroups({ resourceGroupId: rgId, vpcId: vpcs[0]?.id });
      expect(sgs.map((g) => g.name)).to.include.members([`${infra}-sg-cluster-wide`, `${infra}-sg-openshift-net`]);

      const hosts = await api.listDedicatedHosts({ resourceGroupId: rgId, zoneName: 'us-south-1' });
      expect(hosts.map((h) => h.name)).to.deep.equal([`${infra}-dh-us-south-1`]);
      expect(await api.listDedicatedHosts({ resourceGroupId: rgId, zoneName: 'us-south-2' })).to.deep.equal([]);

      expect(await api.listResourceGroups({ accountId: 'someone-else' })).to.deep.equal([]);
      expect((await api.listResourceGroups({ accountId: emu.accountId })).map((g) => g.name)).to.deep.equal([
        infra,
        'Default',
      ]);
    });

    it('attaches user tags to an instance through Global Tagging and lists them', async () => {
      const inst = await api.createInstance(workerPrototype(emu, 'worker-tags'));
      const results = await api.attachTags(
        [inst.crn, 'crn:v1:bluemix:public:is:us-south-1:a/x::instance:missing'],
        ['Owner:team-a', 'env:test'],
      );
      expect(results).to.deep.equal([
        { resource_id: inst.crn, is_error: false },
        {
          resource_id: 'crn:v1:bluemix:public:is:us-south-1:a/x::instance:missing',
          is_error: true,
          message: 'The resource is not found or not accessible.',
        },
      ]);
      expect(await api.listAttachedTags(inst.crn)).to.deep.equal(['env:test', 'owner:team-a']);
      const err = await apiError(api.attachTags([inst.crn], ['bad/tag']), 400, 'bad_field');
      expect(err.service).to.equal('global-tagging');
    });
  });

  describe('faults', () => {
    it('surfaces a 429 with its Retry-After and does not retry inside the SDK', async () => {
      emu.knobs.throttleNext('ListVpcs', 1);
      const err = await apiError(api.listVpcs(), 429, 'rate_limit_exceeded');
      expect(err.retryAfterSeconds).to.equal(1);
      expect(emu.knobs.counts('ListVpcs')).to.deep.include({ total: 1, throttled: 1 });
      expect(await api.listVpcs()).to.have.length(1);
    });

    it('rate-limits a class of calls with a token bucket on the emulator clock', async () => {
      emu.knobs.setRateLimit('read', { ratePerSecond: 1, burst: 2 });
      await api.listVpcs();
      await api.listVpcs();
      await apiError(api.listVpcs(), 429, 'rate_limit_exceeded');
      clock.step(1000);
      await api.listVpcs();
    });

    it('surfaces an injected 5xx with IBM error fields and does not retry', async () => {
      emu.knobs.failNext('CreateInstance', 1);
      const err = await apiError(api.createInstance(workerPrototype(emu, 'worker-5xx')), 500, 'internal_error');
      expect(err.trace).to.be.a('string');
      expect(emu.knobs.counts('CreateInstance').total).to.equal(1);
      expect(emu.instances(), 'an injected failure has no effect').to.have.length(0);
    });

    it('a lost create reply reads as no response, and the retry by name meets 409 instead of a second instance', async () => {
      emu.knobs.loseNextReplies('CreateInstance', 1);
      const err = await apiError(api.createInstance(workerPrototype(emu, 'worker-lost')), 0);
      expect(err.noResponse).to.equal(true);
      expect(emu.instances().map((i) => i.name)).to.deep.equal(['worker-lost']);
      await apiError(api.createInstance(workerPrototype(emu, 'worker-lost')), 409, 'validation_unique_failed');
      expect((await api.listInstances({ name: 'worker-lost' })).map((i) => i.status)).to.deep.equal(['pending']);
    });

    it('a lost reply answered with a 5xx still took effect', async () => {
      const inst = await api.createInstance(workerPrototype(emu, 'worker-gone'));
      emu.knobs.loseNextReplies('DeleteInstance', 1, 'server-error');
      await apiError(api.deleteInstance(inst.id), 500, 'internal_error');
      expect(emu.instance(inst.id)?.status).to.equal('deleting');
    });

    it('hides a new instance from lists (not from get) for the eventual-consistency delay', async () => {
      emu.knobs.setVisibilityDelay(500, VIEW_LIST);
      const inst = await api.createInstance(workerPrototype(emu, 'worker-ec'));
      expect(await api.listInstances({ name: 'worker-ec' })).to.deep.equal([]);
      expect((await api.getInstance(inst.id)).name).to.equal('worker-ec');
      clock.step(500);
      expect((await api.listInstances({ name: 'worker-ec' })).map((i) => i.id)).to.deep.equal([inst.id]);
    });

    it('delays answers by the configured latency on the emulator clock', async () => {
      emu.knobs.setLatency(2000, 'GetRegion');
      let settled = false;
      const p = api.getRegion(emu.region).then((r) => {
        settled = true;
        return r;
      });
      await eventually(() => {
        expect(emu.knobs.counts('GetRegion').total).to.equal(1);
      });
      expect(settled).to.equal(false);
      clock.step(2000);
      expect((await p).name).to.equal(emu.region);
    });

    it('takes declarative knobs at start: a failure rate of 1 on a class fails every matching call', async () => {
      const other = await startEmulator({
        knobs: {
          failureRates: [{ match: 'mutate', probability: 1, fault: { status: 503, code: 'service_unavailable' } }],
        },
      });
      try {
        const c = clientFor(other.emu);
        await apiError(c.createInstance(workerPrototype(other.emu, 'w')), 503, 'service_unavailable');
        expect(await c.listVpcs(), 'reads are not in the class').to.have.length(1);
      } finally {
        await other.emu.stop();
      }
    });

    it('rejects with the abort reason when the signal is aborted', async () => {
      emu.knobs.setLatency(10_000, 'ListVpcs');
      const ac = new AbortController();
      const p = api.listVpcs({}, { signal: ac.signal });
      await eventually(() => {
        expect(emu.knobs.counts('ListVpcs').total).to.equal(1);
      });
      ac.abort(new Error('reconcile cancelled'));
      let caught: unknown;
      try {
        await p;
      } catch (err) {
        caught = err;
      }
      expect((caught as Error).message).to.equal('reconcile cancelled');
      clock.step(10_000);
    });
  });

  describe('configuration', () => {
    it('appends a missing /v1 to the service URL and strips trailing slashes', () => {
      expect(normalizeVpcServiceUrl('https://us-east.iaas.cloud.ibm.com')).to.equal(
        'https://us-east.iaas.cloud.ibm.com/v1',
      );
      expect(normalizeVpcServiceUrl('https://private.us-east.iaas.cloud.ibm.com/v1/')).to.equal(
        'https://private.us-east.iaas.cloud.ibm.com/v1',
      );
      expect(() => normalizeVpcServiceUrl('not a url')).to.throw(VpcClientConfigError, /serviceUrl/);
    });

    it('names the field when an option is invalid', () => {
      expect(() => createVpcClient({})).to.throw(VpcClientConfigError, /apiKey: required/);
      expect(() => createVpcClient({ apiKey: 'k', version: '2025/12/16' })).to.throw(
        VpcClientConfigError,
        /version: must be a date/,
      );
      expect(() => createVpcClient({ apiKey: 'k', pageSize: 101 })).to.throw(VpcClientConfigError, /pageSize/);
      expect(() => createVpcClient({ apiKey: '"k"' })).to.throw(VpcClientConfigError, /apiKey: .*quotes/);
      expect(() => createVpcClient({ apiKey: 'k', iamUrl: 'ftp://x' })).to.throw(VpcClientConfigError, /iamUrl/);
    });

    it('sends the configured API version date', async () => {
      const old = clientFor(emu, { version: '2023-12-12' });
      expect(await old.listVpcs()).to.have.length(1);
    });
  });
});
