import { expect } from 'chai';
import { RealClock } from '../../../lib/index.js';
import { startEc2Emulator, type Ec2Emulator } from '../../../providers/aws/emulator/index.js';
import { AwsClientFactory } from '../../../providers/aws/index.js';
import { actionClassOf } from '../../../providers/aws/metered-attempts.js';
import './fixtures.js';

describe('metered SDK attempts', () => {
  it('classes commands as EC2 meters them: Describe*, Get*, List* and Search* apart from everything else', () => {
    expect(actionClassOf('DescribeInstancesCommand')).to.equal('describe');
    expect(actionClassOf('DescribeTargetHealthCommand')).to.equal('describe');
    expect(actionClassOf('GetConsoleOutputCommand')).to.equal('describe');
    expect(actionClassOf('RunInstancesCommand')).to.equal('mutate');
    expect(actionClassOf('TerminateInstancesCommand')).to.equal('mutate');
    expect(actionClassOf('RegisterTargetsCommand')).to.equal('mutate');
    expect(actionClassOf(undefined)).to.equal('mutate');
  });

  describe('against the EC2 emulator', () => {
    let emu: Ec2Emulator;
    let factory: AwsClientFactory;
    const creds = { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' };

    beforeEach(async () => {
      emu = await startEc2Emulator();
      factory = new AwsClientFactory({
        clock: new RealClock(),
        endpoint: emu.endpoint,
        retryDelayMs: () => 1,
        rateLimits: { describe: { qps: 100, burst: 100 }, mutate: { qps: 1, burst: 3 } },
      });
    });
    afterEach(async () => {
      factory.destroy();
      await emu.stop();
    });

    it("sends the SDK's retry after RequestLimitExceeded through the limiter too, and lowers the mutating calls' rate", async () => {
      emu.knobs.throttleNext('RunInstances', 1);
      const { ec2 } = factory.get('us-east-1', creds);
      const launched = await ec2.runInstances({
        ImageId: 'ami-0a1b2c3d4e5f00001',
        InstanceType: 'm5.large',
        MinCount: 1,
        MaxCount: 1,
        NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: 'subnet-0a1b2c3d4e5f0a001' }],
      });
      expect(launched.InstanceId).to.match(/^i-/);
      expect(emu.knobs.counts('RunInstances')).to.include({ total: 2, throttled: 1 });
      expect(factory.limiter.available('us-east-1', 'mutate')).to.be.below(1.5, 'both attempts took a token');
      expect(factory.limiter.rate('us-east-1', 'mutate')).to.be.below(1, 'the refusal lowered the rate');
      expect(factory.limiter.rate('us-east-1', 'describe')).to.equal(100, 'reads are metered apart');
    });
  });
});
