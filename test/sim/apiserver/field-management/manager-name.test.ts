// The manager name a write is recorded under, as kube-apiserver derives and checks it.
import { expect } from 'chai';
import { StatusError } from '../../../../sim/apiserver/errors.js';
import { managerFromRequest } from '../../../../sim/apiserver/field-management/manager-name.js';

describe('managerFromRequest', () => {
  it('takes the fieldManager the request names', () => {
    expect(
      managerFromRequest('kubectl-edit', 'kubectl/v1.32.4 (linux/amd64) kubernetes/abc', 'UpdateOptions'),
    ).to.equal('kubectl-edit');
  });

  it('derives it from the User-Agent up to the first "/" when none is named', () => {
    expect(managerFromRequest(null, 'kubectl/v1.32.4 (linux/amd64) kubernetes/abc', 'PatchOptions')).to.equal(
      'kubectl',
    );
    expect(managerFromRequest('', 'OpenAPI-Generator/31.0.0/python', 'CreateOptions')).to.equal('OpenAPI-Generator');
    expect(managerFromRequest(null, undefined, 'CreateOptions')).to.equal('');
    expect(managerFromRequest(null, `${'a'.repeat(200)}/1`, 'CreateOptions')).to.have.length(128);
  });

  it('rejects a named manager over 128 bytes or with unprintable characters: 422 naming fieldManager', () => {
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e as StatusError;
      }
      throw new Error('expected a StatusError');
    };
    const long = err(() => managerFromRequest('m'.repeat(129), undefined, 'PatchOptions'));
    expect(long.code).to.equal(422);
    expect(long.details?.causes).to.deep.equal([
      { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 128 bytes', field: 'fieldManager' },
    ]);
    expect(err(() => managerFromRequest('bad\u0007name', undefined, 'CreateOptions')).message).to.equal(
      'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "bad\\u0007name": must only contain printable characters',
    );
  });
});
