import { expect } from 'chai';
import { actionClassOf } from '../../../providers/aws/metered-attempts.js';

// The middleware against the EC2 emulator: test/providers/aws/aws-clients.test.ts.
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
});
