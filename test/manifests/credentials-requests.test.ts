// manifests/providers/aws/credentials-request.yaml against what the actuator calls: every action the EC2
// emulator served in the recorded run and every SDK command the Ec2Api implementation can send must be
// allowed, and nothing else is listed except the permissions AWS checks on the caller behind those calls.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readManifest, readManifestDir, repo } from './manifest-files.js';
import { recordedRun } from './recorded-run.js';

interface Statement {
  effect: string;
  action: string[];
  resource: string;
}

/** Permissions no SDK call names, each with the call that needs it. */
const implied: Record<string, string> = {
  'iam:PassRole': "RunInstances with providerSpec.iamInstanceProfile passes the profile's role",
  'iam:CreateServiceLinkedRole': 'the first spot RunInstances in an account creates AWSServiceRoleForEC2Spot',
  'kms:CreateGrant': 'RunInstances with an EBS volume encrypted by a customer-managed key (blockDevices[].ebs.kmsKey)',
  'kms:Decrypt': 'RunInstances with an EBS volume encrypted by a customer-managed key',
  'kms:DescribeKey': 'RunInstances with an EBS volume encrypted by a customer-managed key',
  'kms:GenerateDataKeyWithoutPlainText': 'RunInstances with an EBS volume encrypted by a customer-managed key',
  'kms:ReEncryptFrom': 'RunInstances from a snapshot encrypted under another key',
  'kms:ReEncryptTo': 'RunInstances from a snapshot encrypted under another key',
};

const sdkPrefixes: Record<string, string> = {
  '@aws-sdk/client-ec2': 'ec2',
  '@aws-sdk/client-elastic-load-balancing': 'elasticloadbalancing',
  '@aws-sdk/client-elastic-load-balancing-v2': 'elasticloadbalancing',
};

/** The IAM actions of the SDK commands a source file imports (import { XCommand [as Y] } from '@aws-sdk/client-...'). */
function commandsImportedBy(source: string): string[] {
  const out = new Set<string>();
  for (const m of source.matchAll(/import\s*{([^}]*)}\s*from\s*'(@aws-sdk\/client-[a-z0-9-]+)'/g)) {
    const prefix = sdkPrefixes[m[2]!];
    if (!prefix) throw new Error(`no IAM prefix known for ${m[2]}`);
    for (const spec of m[1]!.split(',')) {
      const name = /^\s*(?:type\s+)?(\w+)Command(?:\s+as\s+\w+)?\s*$/.exec(spec)?.[1];
      if (name && !/^\s*type\s/.test(spec)) out.add(`${prefix}:${name}`);
    }
  }
  return [...out].sort();
}

/** Emulator knob action names (RunInstances, elb:X, elbv2:X) as IAM actions. */
function iamAction(knobAction: string): string {
  const [svc, name] = knobAction.includes(':') ? knobAction.split(':') : ['ec2', knobAction];
  return `${svc === 'ec2' ? 'ec2' : 'elasticloadbalancing'}:${name}`;
}

describe('manifests/providers/aws/credentials-request.yaml', function () {
  this.timeout(180_000);
  const path = join(repo, 'manifests', 'providers', 'aws', 'credentials-request.yaml');
  const [cr, ...rest] = readManifest(path);
  const spec = cr?.spec as {
    secretRef: { name: string; namespace: string };
    serviceAccountNames?: string[];
    providerSpec: { apiVersion: string; kind: string; statementEntries: Statement[] };
  };
  const listed = () => spec.providerSpec.statementEntries.flatMap((s) => s.action);

  it('is one cloudcredential.openshift.io/v1 CredentialsRequest for an AWSProviderSpec, all statements Allow on *', () => {
    expect(rest).to.have.length(0);
    expect(cr).to.include({ apiVersion: 'cloudcredential.openshift.io/v1', kind: 'CredentialsRequest' });
    expect(spec.providerSpec).to.include({ apiVersion: 'cloudcredential.openshift.io/v1', kind: 'AWSProviderSpec' });
    for (const s of spec.providerSpec.statementEntries) expect(s).to.include({ effect: 'Allow', resource: '*' });
    expect(new Set(listed()).size, 'no action listed twice').to.equal(listed().length);
  });

  it('writes the Secret the AWS samples name, for the machine-api-controllers ServiceAccount', () => {
    const machineSet = readManifestDir('samples/aws').find((d) => d.kind === 'MachineSet');
    const value = (
      machineSet?.spec as { template: { spec: { providerSpec: { value: { credentialsSecret: { name: string } } } } } }
    ).template.spec.providerSpec.value;
    expect(spec.secretRef).to.deep.equal({
      name: value.credentialsSecret.name,
      namespace: machineSet?.metadata?.namespace,
    });
    expect(spec.serviceAccountNames).to.deep.equal(['machine-api-controllers']);
  });

  it('allows every cloud action the actuator called in the recorded AWS run', async () => {
    const run = await recordedRun();
    const called = Object.keys(run.cloudActions).map(iamAction);
    expect(called).to.include.members(['ec2:RunInstances', 'ec2:DescribeInstances', 'ec2:TerminateInstances']);
    expect(called.filter((a) => !listed().includes(a))).to.deep.equal([]);
  });

  it('allows every SDK command the Ec2Api implementation can send', () => {
    const commands = commandsImportedBy(readFileSync(join(repo, 'providers', 'aws', 'ec2-api.ts'), 'utf8'));
    expect(commands).to.include.members([
      'ec2:RunInstances',
      'elasticloadbalancing:RegisterTargets',
      'elasticloadbalancing:RegisterInstancesWithLoadBalancer',
    ]);
    expect(commands.filter((a) => !listed().includes(a))).to.deep.equal([]);
  });

  it('lists nothing the actuator does not call, except the documented permissions behind its calls', () => {
    const commands = new Set(commandsImportedBy(readFileSync(join(repo, 'providers', 'aws', 'ec2-api.ts'), 'utf8')));
    expect(listed().filter((a) => !commands.has(a) && implied[a] === undefined)).to.deep.equal([]);
    expect(
      Object.keys(implied).filter((a) => !listed().includes(a)),
      'documented but not listed',
    ).to.deep.equal([]);
  });

  it('reads SDK command imports, including aliased ones, and ignores type-only imports', () => {
    const src = `import { RunInstancesCommand, type EC2Client } from '@aws-sdk/client-ec2';\nimport { DescribeLoadBalancersCommand as Nlb, RegisterTargetsCommand } from '@aws-sdk/client-elastic-load-balancing-v2';`;
    expect(commandsImportedBy(src)).to.deep.equal([
      'ec2:RunInstances',
      'elasticloadbalancing:DescribeLoadBalancers',
      'elasticloadbalancing:RegisterTargets',
    ]);
  });
});
