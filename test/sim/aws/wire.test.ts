import { DescribeRegionsCommand, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { request } from 'node:http';
import { startEc2Emulator, type Ec2Emulator } from '../../../sim/aws/index.js';
import { DescribeTargetGroupsCommand } from '@aws-sdk/client-elastic-load-balancing-v2';
import { awsError, ec2Client, elbv2Client, workerLaunch } from './ec2-test-env.js';
import { awsCli, hasAwsCli } from '../../e2e/support/aws-cli.js';

interface RawReply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

function raw(
  emu: Ec2Emulator,
  opts: { method?: string; path?: string; body?: string | Buffer; contentType?: string | null; authorization?: string },
): Promise<RawReply> {
  const url = new URL(opts.path ?? '/', emu.endpoint);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (opts.authorization) headers.authorization = opts.authorization;
    if (opts.contentType !== null)
      headers['content-type'] = opts.contentType ?? 'application/x-www-form-urlencoded; charset=utf-8';
    const req = request(url, { method: opts.method ?? 'POST', headers, agent: false }, (res) => {
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
  it('answers AuthFailure (401) to a wrong access key, region or service scope when an access key is required', async () => {
    const emu = await startEc2Emulator({ requireAccessKeyId: 'AKIDTEST' });
    try {
      const good = ec2Client(emu, 1);
      expect((await good.send(new DescribeRegionsCommand({}))).Regions).to.not.be.empty;
      good.destroy();
      const { EC2Client } = await import('@aws-sdk/client-ec2');
      const wrongKey = new EC2Client({
        region: 'us-east-1',
        endpoint: emu.endpoint,
        credentials: { accessKeyId: 'AKIDOTHER', secretAccessKey: 'x' },
        maxAttempts: 1,
      });
      await awsError(wrongKey.send(new DescribeRegionsCommand({})), 'AuthFailure', 401);
      wrongKey.destroy();
      const wrongRegion = new EC2Client({
        region: 'eu-west-1',
        endpoint: emu.endpoint,
        credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'x' },
        maxAttempts: 1,
      });
      await awsError(wrongRegion.send(new DescribeRegionsCommand({})), 'AuthFailure', 401);
      wrongRegion.destroy();
      const elb = elbv2Client(emu, 1);
      expect((await elb.send(new DescribeTargetGroupsCommand({}))).TargetGroups, 'ELB signs as elasticloadbalancing').to
        .not.be.empty;
      elb.destroy();
      const wrongService = await raw(emu, {
        body: 'Action=DescribeTargetGroups&Version=2015-12-01',
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKIDTEST/20261122/us-east-1/ec2/aws4_request, SignedHeaders=host, Signature=00',
      });
      expect([wrongService.status, code(wrongService.body)]).to.deep.equal([401, 'AuthFailure']);
      const unsigned = await raw(emu, { body: 'Action=DescribeRegions&Version=2016-11-15' });
      expect(unsigned.status).to.equal(401);
    } finally {
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
    const emu = await startEc2Emulator({ requireAccessKeyId: 'AKIDCLI' });
    try {
      const { EC2Client } = await import('@aws-sdk/client-ec2');
      const sdk = new EC2Client({
        region: 'us-east-1',
        endpoint: emu.endpoint,
        credentials: { accessKeyId: 'AKIDCLI', secretAccessKey: 'x' },
      });
      const id = (await sdk.send(new RunInstancesCommand(workerLaunch('cli-worker')))).Instances![0]!.InstanceId!;
      sdk.destroy();
      const out = await awsCli<{
        Reservations: { Instances: { InstanceId: string; State: { Name: string }; PrivateDnsName: string }[] }[];
      }>(emu.endpoint, { accessKeyId: 'AKIDCLI', secretAccessKey: 'x' }, [
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
