import { DescribeRegionsCommand, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { request } from 'node:http';
import { EMULATOR_ACCESS_KEY, signRequest, startEc2Emulator, type Ec2Emulator } from '../../../sim/aws/index.js';
import { DescribeTargetGroupsCommand } from '@aws-sdk/client-elastic-load-balancing-v2';
import { callAdmin, startAdminServer, type AdminMethod } from '../../../sim/kit/index.js';
import { awsError, elbv2Client, workerLaunch } from './ec2-test-env.js';
import { awsCli, hasAwsCli } from '../../e2e/support/aws-cli.js';

interface RawReply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

function raw(
  emu: Ec2Emulator,
  opts: {
    method?: string;
    path?: string;
    body?: string | Buffer;
    contentType?: string | null;
    /** Sent as is; without it the request is signed with the emulator's default key, unless `unsigned`. */
    authorization?: string;
    unsigned?: boolean;
  },
): Promise<RawReply> {
  const url = new URL(opts.path ?? '/', emu.endpoint);
  const method = opts.method ?? 'POST';
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (opts.contentType !== null)
      headers['content-type'] = opts.contentType ?? 'application/x-www-form-urlencoded; charset=utf-8';
    if (opts.authorization) headers.authorization = opts.authorization;
    else if (!opts.unsigned) {
      const body = opts.body?.toString() ?? '';
      const elb = /Version=(2015-12-01|2012-06-01)/.test(`${url.search}&${body}`);
      Object.assign(
        headers,
        signRequest(
          EMULATOR_ACCESS_KEY,
          { region: emu.region, service: elb ? 'elasticloadbalancing' : 'ec2' },
          { method, url: `${url.pathname}${url.search}`, host: url.host, contentType: headers['content-type'], body },
        ),
      );
    }
    const req = request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }),
      );
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const code = (xml: string) => /<Code>([^<]*)<\/Code>/.exec(xml)?.[1];

describe('EC2 emulator: wire protocol robustness', () => {
  let emu: Ec2Emulator;
  before(async () => {
    emu = await startEc2Emulator({ maxBodyBytes: 64 * 1024 });
  });
  after(async () => {
    await emu.stop();
  });

  const bad: [string, Parameters<typeof raw>[1], number, string][] = [
    ['a body without Action', { body: 'Version=2016-11-15' }, 400, 'MissingAction'],
    ['a body without Version', { body: 'Action=DescribeRegions' }, 400, 'MissingParameter'],
    ['an unknown API version', { body: 'Action=DescribeRegions&Version=2099-01-01' }, 400, 'NoSuchVersion'],
    ['an unknown action', { body: 'Action=LaunchRockets&Version=2016-11-15' }, 400, 'InvalidAction'],
    [
      'a broken percent-encoding',
      { body: 'Action=DescribeRegions&Version=2016-11-15&RegionName.1=%zz' },
      400,
      'MalformedQueryString',
    ],
    [
      'a JSON body',
      { body: '{"Action":"DescribeRegions"}', contentType: 'application/json' },
      400,
      'MalformedQueryString',
    ],
    [
      'a non-boolean DryRun',
      { body: 'Action=DescribeRegions&Version=2016-11-15&DryRun=maybe' },
      400,
      'InvalidParameterValue',
    ],
    [
      'a non-integer MaxResults',
      { body: 'Action=DescribeInstances&Version=2016-11-15&MaxResults=ten' },
      400,
      'InvalidParameterValue',
    ],
    ['a PUT', { method: 'PUT', body: 'Action=DescribeRegions&Version=2016-11-15' }, 405, 'UnsupportedHttpVerb'],
  ];
  for (const [what, req, status, errCode] of bad) {
    it(`answers ${what} with ${status} ${errCode} in EC2's error XML`, async () => {
      const r = await raw(emu, req);
      expect(r.status).to.equal(status);
      expect(code(r.body)).to.equal(errCode);
      expect(r.body).to.match(/^<\?xml[^>]*>\n<Response><Errors><Error><Code>/);
      expect(r.headers['x-amzn-requestid']).to.be.a('string');
    });
  }

  it('refuses an oversized body with 413 and keeps serving', async () => {
    const r = await raw(emu, { body: `Action=DescribeRegions&Version=2016-11-15&X=${'a'.repeat(70 * 1024)}` });
    expect(r.status).to.equal(413);
    expect(code(r.body)).to.equal('RequestEntityTooLarge');
    const ok = await raw(emu, { body: 'Action=DescribeRegions&Version=2016-11-15' });
    expect(ok.status).to.equal(200);
  });

  it('accepts Query parameters in a GET query string', async () => {
    const r = await raw(emu, {
      method: 'GET',
      path: '/?Action=DescribeRegions&Version=2016-11-15&RegionName.1=us-east-1',
      contentType: null,
    });
    expect(r.status).to.equal(200);
    expect(r.body).to.contain('<DescribeRegionsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">');
    expect(r.body).to.contain('<regionName>us-east-1</regionName>');
  });

  it('answers ELB errors in the ELB ErrorResponse shape', async () => {
    const r = await raw(emu, { body: 'Action=DescribeTargetHealth&Version=2015-12-01&TargetGroupArn=arn:nope' });
    expect(r.status).to.equal(400);
    expect(r.body).to.contain(
      '<ErrorResponse xmlns="http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/"><Error><Type>Sender</Type><Code>TargetGroupNotFound</Code>',
    );
  });
});

describe('EC2 emulator: credentials check', () => {
  const client = async (
    emu: Ec2Emulator,
    credentials: { accessKeyId: string; secretAccessKey: string },
    region?: string,
  ) => {
    const { EC2Client } = await import('@aws-sdk/client-ec2');
    return new EC2Client({ region: region ?? emu.region, endpoint: emu.endpoint, credentials, maxAttempts: 1 });
  };

  it('accepts calls signed with a key of the account, by default the sample Secret’s (EC2 and ELB)', async () => {
    const emu = await startEc2Emulator();
    try {
      const good = await client(emu, { ...EMULATOR_ACCESS_KEY });
      expect((await good.send(new DescribeRegionsCommand({}))).Regions).to.not.be.empty;
      good.destroy();
      const elb = elbv2Client(emu, 1);
      expect((await elb.send(new DescribeTargetGroupsCommand({}))).TargetGroups, 'ELB signs as elasticloadbalancing').to
        .not.be.empty;
      elb.destroy();
    } finally {
      await emu.stop();
    }
  });

  it('answers an unknown key with AuthFailure (401), a wrong secret with SignatureDoesNotMatch (403), as EC2 does', async () => {
    const emu = await startEc2Emulator();
    try {
      const wrongKey = await client(emu, {
        accessKeyId: 'AKIAUNKNOWN',
        secretAccessKey: EMULATOR_ACCESS_KEY.secretAccessKey,
      });
      await awsError(wrongKey.send(new DescribeRegionsCommand({})), 'AuthFailure', 401);
      wrongKey.destroy();
      const wrongSecret = await client(emu, { ...EMULATOR_ACCESS_KEY, secretAccessKey: 'not-the-secret' });
      await awsError(wrongSecret.send(new DescribeRegionsCommand({})), 'SignatureDoesNotMatch', 403);
      wrongSecret.destroy();
      const wrongRegion = await client(emu, { ...EMULATOR_ACCESS_KEY }, 'eu-west-1');
      await awsError(wrongRegion.send(new DescribeRegionsCommand({})), 'AuthFailure', 401);
      wrongRegion.destroy();
      const unsigned = await raw(emu, { body: 'Action=DescribeRegions&Version=2016-11-15', unsigned: true });
      expect([unsigned.status, code(unsigned.body)]).to.deep.equal([401, 'AuthFailure']);
    } finally {
      await emu.stop();
    }
  });

  it('refuses a body changed after signing, and a signature scoped to another service', async () => {
    const emu = await startEc2Emulator();
    try {
      const url = new URL(emu.endpoint);
      const contentType = 'application/x-www-form-urlencoded; charset=utf-8';
      const signed = signRequest(
        EMULATOR_ACCESS_KEY,
        { region: emu.region, service: 'ec2' },
        { method: 'POST', url: '/', host: url.host, contentType, body: 'Action=DescribeRegions&Version=2016-11-15' },
      );
      const tampered = await new Promise<RawReply>((resolve, reject) => {
        const req = request(
          url,
          { method: 'POST', headers: { ...signed, 'content-type': contentType }, agent: false },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers }),
            );
          },
        );
        req.on('error', reject);
        req.end('Action=DescribeInstances&Version=2016-11-15');
      });
      expect([tampered.status, code(tampered.body)]).to.deep.equal([403, 'SignatureDoesNotMatch']);
      const wrongService = await raw(emu, {
        body: 'Action=DescribeTargetGroups&Version=2015-12-01',
        authorization: `AWS4-HMAC-SHA256 Credential=${EMULATOR_ACCESS_KEY.accessKeyId}/20261122/us-east-1/ec2/aws4_request, SignedHeaders=host, Signature=00`,
      });
      expect([wrongService.status, code(wrongService.body)]).to.deep.equal([403, 'SignatureDoesNotMatch']);
      const elbUnknown = await raw(emu, {
        body: 'Action=DescribeTargetGroups&Version=2015-12-01',
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKIAUNKNOWN/20261122/us-east-1/elasticloadbalancing/aws4_request, SignedHeaders=host, Signature=00',
      });
      expect([elbUnknown.status, code(elbUnknown.body)]).to.deep.equal([403, 'InvalidClientTokenId']);
    } finally {
      await emu.stop();
    }
  });

  it('takes keys added and revoked at run time, through the handle and the admin endpoint', async () => {
    const emu = await startEc2Emulator({ accessKeys: [] });
    const admin = await startAdminServer({ routes: emu.adminRoutes });
    const call = async (method: AdminMethod, body?: unknown) => {
      const r = await callAdmin(admin.url, method, '/credentials', body);
      return { status: r.status, body: r.body };
    };
    const rotated = { accessKeyId: 'AKIAROTATED0001', secretAccessKey: 'rotated-secret' };
    const ec2 = await client(emu, rotated);
    try {
      await awsError(ec2.send(new DescribeRegionsCommand({})), 'AuthFailure', 401);
      expect(await call('POST', rotated)).to.deep.equal({ status: 201, body: { accessKeyId: rotated.accessKeyId } });
      expect((await call('GET')).body).to.deep.equal({ items: [{ accessKeyId: rotated.accessKeyId }] });
      expect((await ec2.send(new DescribeRegionsCommand({}))).Regions).to.not.be.empty;
      expect(await call('DELETE', { accessKeyId: rotated.accessKeyId })).to.deep.equal({
        status: 200,
        body: { revoked: true },
      });
      await awsError(ec2.send(new DescribeRegionsCommand({})), 'AuthFailure', 401);
      expect((await call('DELETE', { accessKeyId: rotated.accessKeyId })).status).to.equal(404);
      expect(await call('POST', { accessKeyId: 'AKIANOSECRET' })).to.deep.equal({
        status: 400,
        body: { error: 'secretAccessKey must be a non-empty string' },
      });
      emu.addAccessKey(rotated);
      expect((await ec2.send(new DescribeRegionsCommand({}))).Regions).to.not.be.empty;
    } finally {
      ec2.destroy();
      await admin.stop();
      await emu.stop();
    }
  });
});

describe('EC2 emulator: the aws CLI', function () {
  this.timeout(20_000);

  it('lists an instance with `aws ec2 describe-instances --endpoint-url`', async function () {
    if (!hasAwsCli()) {
      this.skip(); // the aws CLI is not on PATH; the SDK tests above cover the wire protocol
    }
    const emu = await startEc2Emulator();
    try {
      const { EC2Client } = await import('@aws-sdk/client-ec2');
      const sdk = new EC2Client({
        region: 'us-east-1',
        endpoint: emu.endpoint,
        credentials: { ...EMULATOR_ACCESS_KEY },
      });
      const id = (await sdk.send(new RunInstancesCommand(workerLaunch('cli-worker')))).Instances![0]!.InstanceId!;
      sdk.destroy();
      const out = await awsCli<{
        Reservations: { Instances: { InstanceId: string; State: { Name: string }; PrivateDnsName: string }[] }[];
      }>(emu.endpoint, EMULATOR_ACCESS_KEY, [
        'ec2',
        'describe-instances',
        '--filters',
        'Name=tag:Name,Values=cli-worker',
      ]);
      const inst = out.Reservations[0]!.Instances[0]!;
      expect(inst.InstanceId).to.equal(id);
      expect(inst.PrivateDnsName).to.equal('ip-10-0-16-4.ec2.internal');
      expect(['pending', 'running']).to.include(inst.State.Name);
      expect(emu.knobs.counts('DescribeInstances').total).to.equal(1);
    } finally {
      await emu.stop();
    }
  });
});
