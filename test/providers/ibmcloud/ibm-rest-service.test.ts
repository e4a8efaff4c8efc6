import { expect } from 'chai';
import { NoAuthAuthenticator } from 'ibm-cloud-sdk-core';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVpcClient, type VpcApi } from '../../../providers/ibmcloud/vpc-api.js';
import { toVpcApiError, VpcApiError } from '../../../providers/ibmcloud/vpc-api-error.js';
import { apiError } from './ibm-test-env.js';

interface Seen {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A scripted server: answers each request with the next reply and records what it saw. */
async function scripted(
  replies: ((s: Seen) => { status: number; body?: unknown })[],
): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const s = { method: req.method ?? '', url: new URL(req.url ?? '/', 'http://x'), headers: req.headers, body };
      seen.push(s);
      const reply: { status: number; body?: unknown } = (replies[seen.length - 1] ?? (() => ({ status: 500 })))(s);
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(reply.body === undefined ? undefined : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

const close = (s: Server) => new Promise<void>((r) => s.close(() => r()));

function client(url: string): VpcApi {
  return createVpcClient({ serviceUrl: url, authenticator: new NoAuthAuthenticator(), accountId: 'acct', pageSize: 2 });
}

describe('IBM REST service mechanics (VPC client on ibm-cloud-sdk-core)', () => {
  it('sends version, generation=2, Accept and (for POST) Content-Type as the VPC API expects', async () => {
    const srv = await scripted([
      () => ({ status: 200, body: { vpcs: [] } }),
      () => ({ status: 201, body: { id: 'i-1' } }),
      () => ({ status: 204 }),
    ]);
    try {
      const api = client(srv.url);
      await api.listVpcs({ resourceGroupId: 'rg1' });
      await api.createInstance({ name: 'm' } as never);
      await api.deleteInstance('0717_a/b');
      const [list, create, del] = srv.seen;
      expect(list?.url.pathname).to.equal('/v1/vpcs');
      expect(Object.fromEntries(list?.url.searchParams ?? [])).to.deep.equal({
        version: '2025-12-16',
        generation: '2',
        'resource_group.id': 'rg1',
        limit: '2',
      });
      expect(list?.headers.accept).to.equal('application/json');
      expect(create?.method).to.equal('POST');
      expect(create?.headers['content-type']).to.match(/^application\/json/);
      expect(JSON.parse(create?.body ?? '')).to.deep.equal({ name: 'm' });
      expect(create?.url.searchParams.get('generation')).to.equal('2');
      expect(del?.method).to.equal('DELETE');
      expect(del?.url.pathname, 'path parameters are URL-encoded').to.equal('/v1/instances/0717_a%2Fb');
      expect(del?.url.searchParams.get('version')).to.equal('2025-12-16');
    } finally {
      await close(srv.server);
    }
  });

  it('stops with malformed_response when a server repeats a start token, instead of paging forever', async () => {
    const page = { status: 200, body: { vpcs: [{ id: 'a' }], next: { href: 'http://x/v1/vpcs?start=T1&limit=2' } } };
    const srv = await scripted([() => page, () => page]);
    try {
      const err = await apiError(client(srv.url).listVpcs(), 200, 'malformed_response');
      expect(err.message).to.match(/repeated the start token/);
      expect(srv.seen[1]?.url.searchParams.get('start')).to.equal('T1');
    } finally {
      await close(srv.server);
    }
  });

  it('stops with malformed_response on a next.href without start or a page without its items', async () => {
    const srv = await scripted([
      () => ({ status: 200, body: { vpcs: [], next: { href: 'http://x/v1/vpcs?limit=2' } } }),
      () => ({ status: 200, body: {} }),
    ]);
    try {
      await apiError(client(srv.url).listVpcs(), 200, 'malformed_response');
      await apiError(client(srv.url).listSubnets(), 200, 'malformed_response');
    } finally {
      await close(srv.server);
    }
  });

  it('reports a refused connection as status 0 with the socket code', async () => {
    const srv = await scripted([]);
    await close(srv.server);
    const err = await apiError(client(srv.url).listVpcs(), 0);
    expect(err.code).to.equal('ECONNREFUSED');
    expect(err.noResponse).to.equal(true);
  });
});

describe('toVpcApiError', () => {
  it('takes code, message, target and trace from a VPC error body, not the SDK rewrite of 401 text', () => {
    const sdkErr = Object.assign(new Error('Access is denied due to invalid credentials.'), {
      status: 401,
      statusText: 'Unauthorized',
      result: {
        errors: [
          {
            code: 'not_authorized',
            message: 'The IAM token has expired.',
            target: { name: 'Authorization', type: 'header' },
          },
        ],
        trace: 't-1',
      },
      headers: { 'retry-after': '3' },
    });
    const e = toVpcApiError(sdkErr, 'vpc', 'listVpcs');
    expect(e).to.be.instanceOf(VpcApiError);
    expect(e).to.include({
      status: 401,
      code: 'not_authorized',
      message: 'vpc listVpcs: HTTP 401 not_authorized: The IAM token has expired.',
      trace: 't-1',
      target: 'Authorization',
      retryAfterSeconds: 3,
    });
  });

  it('reads IAM errorCode/errorMessage/transactionId', () => {
    const e = toVpcApiError(
      {
        status: 400,
        result: {
          errorCode: 'BXNIM0415E',
          errorMessage: 'Provided API key could not be found.',
          context: { transactionId: 'tx' },
        },
      },
      'iam',
      'getToken',
    );
    expect(e).to.include({ code: 'BXNIM0415E', trace: 'tx', service: 'iam' });
  });

  it('falls back to http_<status> for a body it does not know, and keeps an existing VpcApiError as it is', () => {
    expect(toVpcApiError({ status: 502, result: 'Bad gateway' }, 'vpc', 'getInstance').code).to.equal('http_502');
    const same = new VpcApiError({ service: 'iam', operation: 'getToken', status: 400, code: 'x', message: 'y' });
    expect(toVpcApiError(same, 'vpc', 'listVpcs')).to.equal(same);
  });
});
