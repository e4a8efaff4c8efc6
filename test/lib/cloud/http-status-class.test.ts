import { expect } from 'chai';
import { classifyHttpStatus } from '../../../lib/cloud/http-status-class.js';

describe('classifyHttpStatus', () => {
  const cases: Array<[number | undefined, string | undefined]> = [
    [429, 'throttled'],
    [500, 'transient'],
    [502, 'transient'],
    [503, 'transient'],
    [504, 'transient'],
    [408, 'transient'],
    [425, 'transient'],
    // Credentials a changed Secret (or IAM catching up, or a fixed proxy) makes good: never terminal.
    [401, 'unauthorized'],
    [403, 'unauthorized'],
    [407, 'unauthorized'],
    // The same request gets the same answer however often it is sent.
    [400, 'invalid'],
    [405, 'invalid'],
    [406, 'invalid'],
    [411, 'invalid'],
    [413, 'invalid'],
    [414, 'invalid'],
    [415, 'invalid'],
    [422, 'invalid'],
    [431, 'invalid'],
    // What these mean depends on the call: the cloud's classifier decides.
    [404, undefined],
    [409, undefined],
    [410, undefined],
    [412, undefined],
    [423, undefined],
    [200, undefined],
    [undefined, undefined],
  ];
  for (const [status, expected] of cases) {
    it(`reads ${status} as ${expected}`, () => expect(classifyHttpStatus(status)).to.equal(expected));
  }
});
