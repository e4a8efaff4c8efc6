import { expect } from 'chai';
import {
  InvalidMachineConfigurationError,
  MachineError,
  RequeueAfterError,
  formatDuration,
  isInvalidMachineConfiguration,
  messageOf,
  requeueAfterOf,
} from '../../../lib/apis/errors.js';

describe('machine errors', () => {
  it('recognise InvalidConfiguration through single and double wrapping', () => {
    const inner = new InvalidMachineConfigurationError('bad instanceType', {
      field: 'spec.providerSpec.value.instanceType',
    });
    expect(isInvalidMachineConfiguration(inner)).to.equal(true);
    expect(isInvalidMachineConfiguration(new Error('wrapped', { cause: inner }))).to.equal(true);
    expect(isInvalidMachineConfiguration(new Error('twice', { cause: new Error('once', { cause: inner }) }))).to.equal(
      true,
    );
    expect(isInvalidMachineConfiguration(new MachineError('CreateError', 'boom'))).to.equal(false);
    expect(isInvalidMachineConfiguration(new Error('plain'))).to.equal(false);
  });

  it('find a RequeueAfterError anywhere in the cause chain', () => {
    const err = new Error('drain not permitted', { cause: new RequeueAfterError(20_000) });
    expect(requeueAfterOf(err)).to.equal(20_000);
    expect(requeueAfterOf(new Error('x'))).to.equal(undefined);
  });

  it('treat a RequeueAfterError without a positive delay as a plain error (backoff), never as "done"', () => {
    expect(requeueAfterOf(new RequeueAfterError(0))).to.equal(undefined);
    expect(requeueAfterOf(new Error('wrapped', { cause: new RequeueAfterError(-5) }))).to.equal(undefined);
    expect(new RequeueAfterError(0).message).to.equal('requeue in: 0s');
  });

  it('print durations as Go does', () => {
    expect(new RequeueAfterError(30_000).message).to.equal('requeue in: 30s');
    expect(formatDuration(60_000)).to.equal('1m0s');
    expect(formatDuration(3_600_000)).to.equal('1h0m0s');
    expect(formatDuration(1_500)).to.equal('1.5s');
    expect(formatDuration(250)).to.equal('250ms');
  });

  it('give the text of anything thrown: an Error by its message, any other value as itself', () => {
    expect(messageOf(new MachineError('CreateError', 'boom', { cause: new Error('inner') }))).to.equal('boom');
    expect(messageOf('a thrown string')).to.equal('a thrown string');
    expect(messageOf(42)).to.equal('42');
    expect(messageOf(undefined)).to.equal('undefined');
  });
});
