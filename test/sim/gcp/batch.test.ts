import { expect } from 'chai';
import { GceApiError } from '../../../sim/gcp/api-error.js';
import { boundaryOf, MAX_BATCH_CALLS, parseBatchRequest, renderBatchResponse } from '../../../sim/gcp/batch.js';

// A body as gcloud's HTTP batch writer (Python email.mime) produces it: LF line ends, quoted boundary.
const B = '===============7330845974216740156==';
const part = (id: string, requestLine: string, body?: string) =>
  [
    `--${B}`,
    'Content-Type: application/http',
    'MIME-Version: 1.0',
    'Content-Transfer-Encoding: binary',
    `Content-ID: <b29c5de2-0db4-490b-b421-6a51b598bd22+${id}>`,
    '',
    requestLine,
    'Content-Type: application/json',
    'MIME-Version: 1.0',
    'Host: compute.googleapis.com',
    '',
    body ?? '',
  ].join('\n');

describe('GCE emulator: the batch wire format', () => {
  it('reads every application/http part with its Content-ID, request line, headers and JSON body', () => {
    const body = [
      part('0', 'POST /compute/v1/projects/p/zones/z/instances HTTP/1.1', '{"name": "a"}'),
      part('1', 'DELETE /compute/v1/projects/p/zones/z/instances/b?requestId=x HTTP/1.1'),
      `--${B}--`,
      '',
    ].join('\n');
    const requests = parseBatchRequest(`multipart/mixed; boundary="${B}"`, body);
    expect(requests.map((r) => [r.contentId, r.method, r.target, r.body])).to.deep.equal([
      ['b29c5de2-0db4-490b-b421-6a51b598bd22+0', 'POST', '/compute/v1/projects/p/zones/z/instances', '{"name": "a"}'],
      [
        'b29c5de2-0db4-490b-b421-6a51b598bd22+1',
        'DELETE',
        '/compute/v1/projects/p/zones/z/instances/b?requestId=x',
        '',
      ],
    ]);
    expect(requests[0]?.headers['content-type']).to.equal('application/json');
  });

  it('accepts CRLF line ends and an unquoted boundary', () => {
    const body = `${part('7', 'GET /compute/v1/projects/p/zones/z/instances/a HTTP/1.1')}\n--${B}--\n`
      .split('\n')
      .join('\r\n');
    const [r] = parseBatchRequest(`multipart/mixed; boundary=${B}`, body);
    expect([r?.method, r?.target, r?.body]).to.deep.equal(['GET', '/compute/v1/projects/p/zones/z/instances/a', '']);
  });

  it('refuses a body that is not multipart/mixed, has no boundary, a part of another type, or no closing boundary', () => {
    const refusal = (ct: string | undefined, body: string) => {
      try {
        parseBatchRequest(ct, body);
      } catch (err) {
        expect(err).to.be.instanceOf(GceApiError);
        return (err as GceApiError).message;
      }
      throw new Error('expected a refusal');
    };
    expect(refusal('application/json', '{}')).to.match(/Content-Type: a batch request must be multipart\/mixed/);
    expect(refusal('multipart/mixed', '')).to.match(/needs a boundary parameter/);
    expect(refusal(`multipart/mixed; boundary=${B}`, `--${B}\nContent-Type: text/plain\n\nhello\n--${B}--\n`)).to.match(
      /batch part 1: Content-Type must be application\/http/,
    );
    expect(refusal(`multipart/mixed; boundary=${B}`, part('0', 'GET /x HTTP/1.1'))).to.match(/closing boundary/);
    expect(refusal(`multipart/mixed; boundary=${B}`, `${part('0', 'nonsense')}\n--${B}--`)).to.match(
      /batch part 1: the request line/,
    );
  });

  it(`refuses more than ${MAX_BATCH_CALLS} calls in one batch`, () => {
    const parts = Array.from({ length: MAX_BATCH_CALLS + 1 }, (_, i) =>
      part(String(i), 'GET /compute/v1/projects/p HTTP/1.1'),
    );
    expect(() => parseBatchRequest(`multipart/mixed; boundary=${B}`, `${parts.join('\n')}\n--${B}--`)).to.throw(
      GceApiError,
      /at most 1000 calls/,
    );
  });

  it('takes the boundary from a quoted parameter among others', () => {
    expect(boundaryOf('Multipart/Mixed; charset=utf-8; boundary="a b"')).to.equal('a b');
  });

  it('answers each part with Content-ID response-<id>, its HTTP status line and JSON, in order', () => {
    const out = renderBatchResponse(
      [
        { contentId: 'u+0', status: 200, body: { kind: 'compute#operation' } },
        { contentId: 'u+1', status: 404, body: { error: { code: 404 } } },
      ],
      'batch_x',
    );
    expect(out.contentType).to.equal('multipart/mixed; boundary=batch_x');
    const parts = out.body.split('--batch_x');
    expect(parts).to.have.length(4);
    expect(parts[1])
      .to.include('Content-ID: <response-u+0>\r\n\r\nHTTP/1.1 200 OK\r\n')
      .and.to.include('{"kind":"compute#operation"}');
    expect(parts[2]).to.include('Content-ID: <response-u+1>\r\n\r\nHTTP/1.1 404 Not Found\r\n');
    expect(parts[3]).to.equal('--\r\n');
  });
});
