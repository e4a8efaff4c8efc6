import { expect } from 'chai';
import { checkJsonTextDepth, checkValueDepth, MaxJsonDepth } from '../../../sim/apiserver/json-depth.js';
import { StatusError } from '../../../sim/apiserver/errors.js';
import { createNamespace, startEnv, type Env } from './helpers.js';

const nested = (depth: number, leaf = '1') => `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;

function rejection(f: () => void): StatusError | undefined {
  try {
    f();
  } catch (err) {
    return err as StatusError;
  }
  return undefined;
}

describe('envtest request bodies: nesting limit', () => {
  describe('the checks', () => {
    it('counts objects and arrays, not brackets inside strings or after escaped quotes', () => {
      expect(rejection(() => checkJsonTextDepth(nested(3), 3))).to.equal(undefined);
      expect(rejection(() => checkJsonTextDepth(`[${nested(3)}]`, 3))?.code).to.equal(400);
      expect(rejection(() => checkJsonTextDepth(`{"a":"{{{{[[[[\\"{{{{"}`, 1))).to.equal(undefined);
    });

    it('holds parsed values (YAML, patch results) to the same limit without recursing', () => {
      expect(rejection(() => checkValueDepth(JSON.parse(nested(MaxJsonDepth))))).to.equal(undefined);
      const err = rejection(() => checkValueDepth(JSON.parse(nested(MaxJsonDepth + 1))));
      expect(err?.code).to.equal(400);
      expect(err?.message).to.contain(`more than ${MaxJsonDepth} levels deep`);
      // A structure that refers to itself is as deep as it gets, never an endless walk.
      const loop: Record<string, unknown> = {};
      loop.self = loop;
      expect(rejection(() => checkValueDepth(loop))?.code).to.equal(400);
    });
  });

  describe('the server', () => {
    let env: Env;
    before(async () => {
      env = await startEnv();
      await createNamespace(env, 'deep');
    });
    after(() => env.cp.stop());

    async function send(
      method: string,
      path: string,
      body?: string,
      contentType = 'application/json',
    ): Promise<{ status: number; body: { message?: string } }> {
      const res = await fetch(`${env.cp.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${env.cp.token}`, 'content-type': contentType },
        body,
      });
      return { status: res.status, body: (await res.json()) as { message?: string } };
    }

    const pod = (name: string, depth: number) =>
      `{"metadata":{"name":"${name}"},"spec":{"containers":[{"name":"c","image":"i"}],"x":${nested(depth)}}}`;

    it(`stores and serves a body nested right up to the limit (${MaxJsonDepth} levels)`, async () => {
      const created = await send('POST', '/api/v1/namespaces/deep/pods', pod('at-limit', MaxJsonDepth - 3));
      expect(created.status, created.body.message).to.equal(201);
      const got = await send('GET', '/api/v1/namespaces/deep/pods/at-limit');
      expect(got.status).to.equal(200);
    });

    it('answers 400 naming the limit, not 500, to a body nested deeper, however deep', async () => {
      for (const depth of [MaxJsonDepth + 1, 100_000]) {
        const res = await send('POST', '/api/v1/namespaces/deep/pods', pod(`deep-${depth}`, depth));
        expect(res.status, res.body.message).to.equal(400);
        expect(res.body.message).to.contain(`more than ${MaxJsonDepth} levels deep`);
      }
      const yaml = await send(
        'POST',
        '/api/v1/namespaces/deep/configmaps',
        `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
        'application/yaml',
      );
      expect(yaml.status).to.equal(400);
    });

    it('answers 400 to a patch that would make a stored object deeper than the limit', async () => {
      expect((await send('POST', '/api/v1/namespaces/deep/pods', pod('grows', MaxJsonDepth - 10))).status).to.equal(
        201,
      );
      const path = `/spec/x${'/a'.repeat(MaxJsonDepth - 10)}`;
      const patch = `[{"op":"replace","path":"${path}","value":${nested(20)}}]`;
      const res = await send('PATCH', '/api/v1/namespaces/deep/pods/grows', patch, 'application/json-patch+json');
      expect(res.status, res.body.message).to.equal(400);
      expect(res.body.message).to.contain('levels deep');
    });
  });
});
