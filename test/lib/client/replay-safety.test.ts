// Which requests the transport sends again after a reused connection failed them before any reply: only
// those a second arrival cannot change (reads, and writes conditional on the object's resourceVersion or uid).
import { expect } from 'chai';
import { isReplaySafe } from '../../../lib/client/replay-safety.js';

const jsonPatch = 'application/json-patch+json';
const mergePatch = 'application/merge-patch+json';

describe('isReplaySafe', () => {
  it('replays reads', () => {
    expect(isReplaySafe({ method: 'GET' })).to.equal(true);
  });

  it('replays a PUT only when it carries the resourceVersion it replaces (a replay after success is a 409)', () => {
    expect(isReplaySafe({ method: 'PUT', body: { metadata: { name: 'm', resourceVersion: '7' } } })).to.equal(true);
    expect(isReplaySafe({ method: 'PUT', body: { metadata: { name: 'm' } } })).to.equal(false);
    expect(isReplaySafe({ method: 'PUT', body: { metadata: { name: 'm', resourceVersion: '' } } })).to.equal(false);
  });

  it('replays a patch only when it is locked to a resourceVersion', () => {
    const locked = { metadata: { resourceVersion: '7' }, spec: { a: 1 } };
    expect(isReplaySafe({ method: 'PATCH', contentType: mergePatch, body: locked })).to.equal(true);
    expect(isReplaySafe({ method: 'PATCH', contentType: mergePatch, body: { spec: { a: 1 } } })).to.equal(false);
    const lock = { op: 'replace', path: '/metadata/resourceVersion', value: '7' };
    const add = { op: 'add', path: '/spec/taints/-', value: { key: 'k' } };
    expect(isReplaySafe({ method: 'PATCH', contentType: jsonPatch, body: [lock, add] })).to.equal(true);
    expect(isReplaySafe({ method: 'PATCH', contentType: jsonPatch, body: [{ ...lock, op: 'test' }, add] })).to.equal(
      true,
    );
    expect(isReplaySafe({ method: 'PATCH', contentType: jsonPatch, body: [add] })).to.equal(false);
    expect(isReplaySafe({ method: 'PATCH', contentType: jsonPatch, body: [add, lock] })).to.equal(false);
  });

  it('replays a DELETE only with a uid or resourceVersion precondition (never the next object of that name)', () => {
    expect(isReplaySafe({ method: 'DELETE', body: { preconditions: { uid: 'u' } } })).to.equal(true);
    expect(isReplaySafe({ method: 'DELETE', body: { preconditions: { resourceVersion: '3' } } })).to.equal(true);
    expect(isReplaySafe({ method: 'DELETE', body: { propagationPolicy: 'Background' } })).to.equal(false);
    expect(isReplaySafe({ method: 'DELETE' })).to.equal(false);
  });

  it('never replays a POST: a generateName create would make a second object, a named one could revive a deleted one', () => {
    expect(isReplaySafe({ method: 'POST', body: { metadata: { generateName: 'm-' } } })).to.equal(false);
    expect(isReplaySafe({ method: 'POST', body: { metadata: { name: 'm', resourceVersion: '1' } } })).to.equal(false);
  });
});
