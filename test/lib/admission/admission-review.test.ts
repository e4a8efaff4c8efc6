// The decoder against what a hostile or broken client can send: each is refused with a clear reason and its
// HTTP code, in bounded time, and never throws anything but AdmissionDecodeError.
import { expect } from 'chai';
import {
  AdmissionDecodeError,
  checkContentType,
  decodeAdmissionReview,
  MaxAdmissionRequestBytes,
} from '../../../lib/admission/admission-review.js';
import { MaxAdmissionJsonDepth } from '../../../lib/admission/admission-review.js';

function refusal(body: string): AdmissionDecodeError {
  try {
    decodeAdmissionReview(body);
  } catch (err) {
    expect(err).to.be.instanceOf(AdmissionDecodeError);
    return err as AdmissionDecodeError;
  }
  throw new Error('expected a refusal');
}

const review = (request: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
const machineRequest = {
  uid: 'u-1',
  kind: { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' },
  operation: 'CREATE',
  object: { metadata: { name: 'm' } },
};

describe('decodeAdmissionReview', () => {
  it('decodes an AdmissionReview v1 request', () => {
    const req = decodeAdmissionReview(review(machineRequest));
    expect(req).to.deep.include({ uid: 'u-1', operation: 'CREATE' });
    expect(req.object?.metadata.name).to.equal('m');
  });

  it('refuses an empty body, garbage and JSON that is not an object', () => {
    expect(refusal('').message).to.equal('request body is empty');
    const garbage = refusal('\u0000\u00ff{{{not json');
    expect(garbage.code).to.equal(400);
    expect(garbage.message).to.match(/^request body is not valid JSON/);
    expect(refusal('[1,2]').message).to.equal('request body must be an AdmissionReview object');
  });

  it('refuses another version or kind of review, and a request without uid, operation or kind', () => {
    expect(
      refusal(
        JSON.stringify({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: machineRequest }),
      ).message,
    ).to.match(/expected admission\.k8s\.io\/v1 AdmissionReview/);
    expect(refusal(review({ ...machineRequest, uid: undefined })).message).to.equal('request.uid: Required value');
    const op = refusal(review({ ...machineRequest, operation: 'PATCH' }));
    expect(op.message).to.match(/^request\.operation/);
    expect(op.uid, 'the uid is kept so the answer still matches the request').to.equal('u-1');
    expect(refusal(review({ ...machineRequest, kind: 'Machine' })).message).to.match(/^request\.kind/);
    expect(refusal(review({ ...machineRequest, object: 'a string' })).message).to.equal(
      'request.object: must be an object',
    );
  });

  it(`refuses nesting deeper than ${MaxAdmissionJsonDepth} levels before parsing it (no stack overflow downstream)`, () => {
    const deep = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","object":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const started = Date.now();
    const err = refusal(deep);
    expect(err.code).to.equal(400);
    expect(err.message).to.match(/nests objects and arrays more than 512 levels deep/);
    expect(Date.now() - started).to.be.lessThan(2_000);
  });

  it('counts brackets inside strings as text, not nesting', () => {
    const req = decodeAdmissionReview(
      review({ ...machineRequest, object: { metadata: { name: 'm', annotations: { a: '['.repeat(10_000) } } } }),
    );
    expect(req.object?.metadata.annotations?.a).to.have.length(10_000);
  });

  it("decodes a 5 MB request (an object near the API server's limit, plus its old copy) in bounded time", () => {
    const big = 'x'.repeat(5 * 1024 * 1024);
    const started = Date.now();
    const req = decodeAdmissionReview(
      review({
        ...machineRequest,
        object: { metadata: { name: 'm' }, spec: { providerSpec: { value: { userData: big } } } },
      }),
    );
    expect(
      (req.object as unknown as { spec: { providerSpec: { value: { userData: string } } } }).spec.providerSpec.value
        .userData,
    ).to.have.length(big.length);
    expect(Date.now() - started).to.be.lessThan(5_000);
  });

  it(`refuses a body over ${MaxAdmissionRequestBytes} bytes with 413`, () => {
    const err = refusal(
      review({ ...machineRequest, object: { metadata: { name: 'x'.repeat(MaxAdmissionRequestBytes) } } }),
    );
    expect(err.code).to.equal(413);
    expect(err.message).to.equal(`request entity is too large; limit is ${MaxAdmissionRequestBytes} bytes`);
  });
});

describe('checkContentType', () => {
  it('accepts application/json (with parameters) and refuses anything else, naming it', () => {
    expect(() => checkContentType('application/json; charset=utf-8')).to.not.throw();
    expect(() => checkContentType('text/plain')).to.throw(
      AdmissionDecodeError,
      'contentType=text/plain, expected application/json',
    );
    expect(() => checkContentType(undefined)).to.throw(AdmissionDecodeError, 'contentType=, expected application/json');
  });
});
