// Dynamic admission in the local control plane, against real HTTPS webhooks: what kube-apiserver sends,
// in which order it calls mutating and validating webhooks, how it applies their patches and reports
// their denials and warnings, and how failurePolicy, timeouts, caBundle, selectors, rules, matchPolicy,
// dryRun and reinvocation decide what happens.
import { expect } from 'chai';
import { createServer } from 'node:net';
import { createNamespace, raw, startEnv, W, widget, type Env, type Json } from '../helpers.js';
import { allow, deny, patchOf, startWebhookServer, type WebhookServer } from './webhook-server.js';

const ARG = '/apis/admissionregistration.k8s.io/v1';
const widgets = (ns: string) => `/apis/${W.group}/${W.version}/namespaces/${ns}/${W.plural}`;
const json = { 'content-type': 'application/json' };

function rule(extra: Json = {}): Json {
  return {
    apiGroups: [W.group],
    apiVersions: ['v1'],
    resources: ['widgets'],
    operations: ['CREATE', 'UPDATE'],
    ...extra,
  };
}

function hookFor(server: WebhookServer, name: string, extra: Json = {}): Json {
  return {
    name,
    clientConfig: { url: `${server.url}/${name}`, caBundle: server.caBundle },
    rules: [rule()],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

/** A port nothing listens on (bound, then closed). */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** The Warning header values (Node joins repeated headers with ", "). */
function warningsOf(res: { headers: Record<string, string | string[] | undefined> }): string[] {
  const h = res.headers.warning;
  const joined = h === undefined ? '' : Array.isArray(h) ? h.join(', ') : h;
  return joined === '' ? [] : joined.split(/, (?=299 - ")/);
}

describe('envtest control plane: dynamic admission webhooks', function () {
  this.timeout(20000);
  let env: Env;
  let hook: WebhookServer;
  let other: WebhookServer;
  const services = new Map<string, string>();
  const failedOpen: string[] = [];
  let nsCount = 0;
  let ns: string;

  async function register(kind: 'mutating' | 'validating', name: string, webhooks: Json[]): Promise<void> {
    const res = await raw(env.cp, 'POST', `${ARG}/${kind}webhookconfigurations`, {
      body: JSON.stringify({ metadata: { name }, webhooks }),
      headers: json,
    });
    expect(res.status, res.text).to.equal(201);
  }
  const post = (body: Json, query = '') =>
    raw(env.cp, 'POST', `${widgets(ns)}${query}`, { body: JSON.stringify(body), headers: json });
  const get = (name: string) => raw(env.cp, 'GET', `${widgets(ns)}/${name}`);

  before(async () => {
    hook = await startWebhookServer(['machine-webhook.webhooks.svc']);
    other = await startWebhookServer();
    env = await startEnv({
      webhookServiceResolver: services,
      onWebhookFailedOpen: (_name, message) => failedOpen.push(message),
    });
  });
  after(async () => {
    await env?.cp.stop();
    await hook?.close();
    await other?.close();
  });
  beforeEach(async () => {
    ns = `adm-${++nsCount}`;
    await createNamespace(env, ns);
    hook.handle = (request) => allow(request);
    hook.reviews.length = 0;
    failedOpen.length = 0;
  });
  afterEach(async () => {
    for (const kind of ['mutating', 'validating']) {
      await raw(env.cp, 'DELETE', `${ARG}/${kind}webhookconfigurations`);
    }
  });

  describe('webhook configurations', () => {
    it('are served in admissionregistration.k8s.io/v1 with kube-apiserver defaults filled in', async () => {
      const disco = (await raw(env.cp, 'GET', ARG)).json();
      expect(disco.resources.map((r: Json) => [r.name, r.namespaced])).to.deep.include.members([
        ['mutatingwebhookconfigurations', false],
        ['validatingwebhookconfigurations', false],
      ]);
      await register('mutating', 'defaults', [
        {
          name: 'm.defaults.test.io',
          clientConfig: { service: { namespace: 'webhooks', name: 'machine-webhook', path: '/mutate' } },
          rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ]);
      const stored = (await raw(env.cp, 'GET', `${ARG}/mutatingwebhookconfigurations/defaults`)).json();
      expect(stored.metadata.generation).to.equal(1);
      expect(stored.webhooks[0]).to.deep.include({
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        timeoutSeconds: 10,
        reinvocationPolicy: 'Never',
      });
      expect(stored.webhooks[0].clientConfig.service.port).to.equal(443);
      expect(stored.webhooks[0].rules[0].scope).to.equal('*');
    });

    it('are refused with 422 naming each field and the rule it breaks', async () => {
      const bad = {
        metadata: { name: 'bad' },
        webhooks: [
          {
            name: 'two.segments',
            clientConfig: { url: 'http://127.0.0.1/x' },
            rules: [
              {
                apiGroups: ['*', 'apps'],
                apiVersions: ['v1'],
                resources: ['*/*', 'pods'],
                operations: ['*', 'CREATE'],
              },
            ],
            admissionReviewVersions: ['v1beta1'],
            timeoutSeconds: 31,
          },
          {
            name: 'dup.test.io',
            clientConfig: { url: 'https://127.0.0.1/a', service: { namespace: 'a', name: 'b' } },
            sideEffects: 'Some',
            admissionReviewVersions: ['v1'],
            failurePolicy: 'Never',
          },
          {
            name: 'dup.test.io',
            clientConfig: { service: { namespace: 'a', name: 'b', port: 70000 } },
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
          },
        ],
      };
      const res = await raw(env.cp, 'POST', `${ARG}/validatingwebhookconfigurations`, {
        body: JSON.stringify(bad),
        headers: json,
      });
      expect(res.status).to.equal(422);
      const causes = res.json().details.causes.map((c: Json) => `${c.field}: ${c.message}`);
      expect(causes).to.include.members([
        'webhooks[0].name: Invalid value: "two.segments": should be a domain with at least three segments separated by dots',
        'webhooks[0].clientConfig.url: Invalid value: "http://127.0.0.1/x": \'https\' is the only allowed URL scheme',
        'webhooks[0].rules[0].operations: Invalid value: ["*","CREATE"]: if \'*\' is present, must not specify other operations',
        'webhooks[0].rules[0].apiGroups: Invalid value: ["*","apps"]: if \'*\' is present, must not specify other API groups',
        'webhooks[0].rules[0].resources: Invalid value: ["*/*","pods"]: if \'*/*\' is present, must not specify other resources',
        'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
        'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
        'webhooks[0].admissionReviewVersions: Invalid value: ["v1beta1"]: must include at least one of v1',
        'webhooks[1].clientConfig: Required value: exactly one of url or service is required',
        'webhooks[1].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
        'webhooks[1].failurePolicy: Unsupported value: "Never": supported values: "Fail", "Ignore"',
        'webhooks[2].name: Duplicate value: "dup.test.io"',
        'webhooks[2].clientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive',
      ]);
    });
  });

  describe('mutating and validating webhooks on writes', () => {
    it('sends an AdmissionReview v1 with the request attributes and stores the JSONPatch result', async () => {
      hook.handle = (request) => patchOf(request, [{ op: 'add', path: '/spec/color', value: 'blue' }]);
      await register('mutating', 'colour', [hookFor(hook, 'color.defaults.test.io')]);
      const res = await post(widget('w1', { size: 'small' }));
      expect(res.status, res.text).to.equal(201);
      expect(res.json().spec.color).to.equal('blue');
      expect((await get('w1')).json().spec.color).to.equal('blue');
      const { path, request } = hook.reviews[0] ?? {};
      expect(path).to.equal('/color.defaults.test.io?timeout=10s');
      expect(request.uid).to.be.a('string').and.not.equal('');
      expect(request).to.deep.include({
        kind: { group: W.group, version: 'v1', kind: 'Widget' },
        resource: { group: W.group, version: 'v1', resource: 'widgets' },
        requestKind: { group: W.group, version: 'v1', kind: 'Widget' },
        requestResource: { group: W.group, version: 'v1', resource: 'widgets' },
        name: 'w1',
        namespace: ns,
        operation: 'CREATE',
        oldObject: null,
        dryRun: false,
        options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
      });
      expect(request.userInfo.username).to.equal('system:admin');
      expect(request.object.metadata.name).to.equal('w1');
      expect(request.object.spec).to.deep.equal({ size: 'small', replicas: 1 });
    });

    it('defaults while decoding, runs mutating webhooks, then defaults and validates again, then validating webhooks', async () => {
      const seen: Record<string, Json> = {};
      hook.handle = (request) => {
        const last = hook.reviews[hook.reviews.length - 1];
        if (last?.path.startsWith('/m.order')) {
          seen.mutating = request.object.spec;
          return patchOf(request, [{ op: 'add', path: '/spec/color', value: 'red' }]);
        }
        seen.validating = request.object.spec;
        return allow(request);
      };
      await register('mutating', 'order', [hookFor(hook, 'm.order.test.io')]);
      await register('validating', 'order', [hookFor(hook, 'v.order.test.io')]);
      expect((await post(widget('w2', { size: 'small' }))).status).to.equal(201);
      // kube's decoder fills a custom resource's defaults before any webhook sees the object.
      expect(seen.mutating).to.deep.equal({ size: 'small', replicas: 1 });
      expect(seen.validating).to.deep.equal({ size: 'small', color: 'red', replicas: 1 });
    });

    it('fails a patch whose copy operations would blow the object up, instead of building it', async () => {
      // 16 doublings of 1 KiB: 64 MiB if nothing stopped it.
      const doubling = [{ op: 'add', path: '/spec/config', value: { blob: 'x'.repeat(1024) } }];
      for (let i = 0; i < 16; i++)
        doubling.push({ op: 'copy', from: '/spec/config', path: `/spec/config/c${i}` } as never);
      hook.handle = (request) => patchOf(request, doubling);
      await register('mutating', 'bomb', [hookFor(hook, 'bomb.test.io')]);
      const res = await post(widget('bomb'));
      expect(res.status).to.equal(500);
      expect(res.json().message).to.include('the patch copies more than 6291456 bytes');
    });

    it('validates the patched object against the schema (422 for a value the webhook made invalid)', async () => {
      hook.handle = (request) => patchOf(request, [{ op: 'replace', path: '/spec/size', value: 'huge' }]);
      await register('mutating', 'breaks', [hookFor(hook, 'breaks.test.io')]);
      const res = await post(widget('w3', { size: 'small' }));
      expect(res.status).to.equal(422);
      expect(res.json().message).to.include('spec.size: Unsupported value: "huge"');
      expect((await get('w3')).status).to.equal(404);
    });

    it('turns a denial into the status kube-apiserver returns, keeping the webhook code and reason', async () => {
      hook.handle = (request) =>
        deny(request, { code: 403, reason: 'Forbidden', message: 'spec.size: large widgets are not allowed' });
      await register('validating', 'deny', [hookFor(hook, 'size.policy.test.io')]);
      const res = await post(widget('w4', { size: 'large' }));
      expect(res.status).to.equal(403);
      expect(res.json()).to.deep.include({
        kind: 'Status',
        status: 'Failure',
        reason: 'Forbidden',
        code: 403,
        message: 'admission webhook "size.policy.test.io" denied the request: spec.size: large widgets are not allowed',
      });
      expect((await get('w4')).status).to.equal(404);
    });

    it('answers at least 400 for a denial without a code, and says "without explanation" without a message', async () => {
      hook.handle = (request) => deny(request, undefined);
      await register('validating', 'deny', [hookFor(hook, 'silent.policy.test.io')]);
      const res = await post(widget('w5'));
      expect(res.status).to.equal(400);
      expect(res.json().message).to.equal(
        'admission webhook "silent.policy.test.io" denied the request without explanation',
      );
    });

    it('returns the warnings of every webhook as Warning headers, on success and on denial', async () => {
      hook.handle = (request) => {
        const last = hook.reviews[hook.reviews.length - 1];
        if (last?.path.startsWith('/m.warn')) return allow(request, { warnings: ['from "mutating"'] });
        if (request.object.spec.size === 'large')
          return deny(request, { code: 403, message: 'no' }, { warnings: ['large is deprecated'] });
        return allow(request, { warnings: ['validated'] });
      };
      await register('mutating', 'warn', [hookFor(hook, 'm.warn.test.io')]);
      await register('validating', 'warn', [hookFor(hook, 'v.warn.test.io')]);
      const ok = await post(widget('w6'));
      expect(ok.status).to.equal(201);
      expect(warningsOf(ok)).to.deep.equal(['299 - "from \\"mutating\\""', '299 - "validated"']);
      const denied = await post(widget('w7', { size: 'large' }));
      expect(denied.status).to.equal(403);
      expect(warningsOf(denied)).to.deep.equal(['299 - "from \\"mutating\\""', '299 - "large is deprecated"']);
    });

    it('calls webhooks on DELETE with the old object, and refuses a patch there', async () => {
      expect((await post(widget('w8'))).status).to.equal(201);
      hook.handle = (request) =>
        deny(request, { code: 403, message: `${request.oldObject.metadata.name} is protected` });
      await register('validating', 'protect', [
        hookFor(hook, 'protect.test.io', { rules: [rule({ operations: ['DELETE'] })] }),
      ]);
      const res = await raw(env.cp, 'DELETE', `${widgets(ns)}/w8`);
      expect(res.status).to.equal(403);
      expect(res.json().message).to.equal('admission webhook "protect.test.io" denied the request: w8 is protected');
      expect(hook.reviews[0]?.request).to.deep.include({ operation: 'DELETE', object: null, name: 'w8' });
      expect(hook.reviews[0]?.request.options.kind).to.equal('DeleteOptions');

      await raw(env.cp, 'DELETE', `${ARG}/validatingwebhookconfigurations/protect`);
      hook.handle = (request) => patchOf(request, [{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }]);
      await register('mutating', 'patch-delete', [
        hookFor(hook, 'patch-delete.test.io', { rules: [rule({ operations: ['DELETE'] })] }),
      ]);
      const patched = await raw(env.cp, 'DELETE', `${widgets(ns)}/w8`);
      expect(patched.status).to.equal(500);
      expect(patched.json().message).to.include(
        'admission webhook "patch-delete.test.io" attempted to modify the object, which is not supported for this operation',
      );
      expect((await get('w8')).status).to.equal(200);
    });
  });

  describe('writes that land while a webhook is deciding', () => {
    const merge = { 'content-type': 'application/merge-patch+json' };

    /** Holds the first review whose object has spec.color `color` until release() is called. */
    function holdFirst(color: string): { release: () => void; held: Promise<void> } {
      let release = () => {};
      let signalHeld = () => {};
      const held = new Promise<void>((r) => (signalHeld = r));
      let holding = true;
      hook.handle = (request) => {
        if (holding && request.object?.spec?.color === color) {
          holding = false;
          signalHeld();
          return new Promise((r) => (release = () => r(allow(request))));
        }
        return allow(request);
      };
      return { release: () => release(), held };
    }

    it('re-admit a patch on the new object instead of overwriting the other write', async () => {
      await post(widget('cc1'));
      await register('validating', 'hold', [hookFor(hook, 'hold.test.io')]);
      const gate = holdFirst('green');
      const slow = raw(env.cp, 'PATCH', `${widgets(ns)}/cc1`, {
        body: JSON.stringify({ spec: { color: 'green' } }),
        headers: merge,
      });
      await gate.held;
      const fast = await raw(env.cp, 'PATCH', `${widgets(ns)}/cc1`, {
        body: JSON.stringify({ metadata: { labels: { other: 'write' } } }),
        headers: merge,
      });
      expect(fast.status).to.equal(200);
      gate.release();
      expect((await slow).status).to.equal(200);
      const stored = (await get('cc1')).json();
      expect(stored.spec.color).to.equal('green');
      expect(stored.metadata.labels).to.deep.equal({ other: 'write' });
      const greens = hook.reviews.filter((r) => r.request.object.spec.color === 'green');
      expect(greens).to.have.length(2);
      expect(greens[1]?.request.object.metadata.labels).to.deep.equal({ other: 'write' });
    });

    it('answer 409 to a PUT whose resourceVersion went stale meanwhile', async () => {
      await post(widget('cc2'));
      const current = (await get('cc2')).json();
      await register('validating', 'hold', [hookFor(hook, 'hold.test.io')]);
      const gate = holdFirst('purple');
      const slow = raw(env.cp, 'PUT', `${widgets(ns)}/cc2`, {
        body: JSON.stringify({ ...current, spec: { ...current.spec, color: 'purple' } }),
        headers: json,
      });
      await gate.held;
      expect(
        (
          await raw(env.cp, 'PATCH', `${widgets(ns)}/cc2`, {
            body: JSON.stringify({ spec: { color: 'cyan' } }),
            headers: merge,
          })
        ).status,
      ).to.equal(200);
      gate.release();
      const res = await slow;
      expect(res.status).to.equal(409);
      expect(res.json().reason).to.equal('Conflict');
      expect((await get('cc2')).json().spec.color).to.equal('cyan');
    });
  });

  describe('failures to call a webhook', () => {
    it('fail the request under failurePolicy Fail and let it through, reported, under Ignore', async () => {
      const port = await deadPort();
      const down = {
        name: 'down.test.io',
        clientConfig: { url: `https://127.0.0.1:${port}/v`, caBundle: hook.caBundle },
        rules: [rule()],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      };
      await register('validating', 'down-fail', [down]);
      const res = await post(widget('f1'));
      expect(res.status).to.equal(500);
      expect(res.json().reason).to.equal('InternalError');
      expect(res.json().message).to.match(
        /^Internal error occurred: failed calling webhook "down\.test\.io": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/v\?timeout=10s": .*ECONNREFUSED/,
      );
      expect((await get('f1')).status).to.equal(404);

      await raw(env.cp, 'DELETE', `${ARG}/validatingwebhookconfigurations/down-fail`);
      await register('validating', 'down-ignore', [{ ...down, failurePolicy: 'Ignore' }]);
      expect((await post(widget('f2'))).status).to.equal(201);
      expect(failedOpen).to.have.length(1);
      expect(failedOpen[0]).to.include('failed calling webhook "down.test.io"');
    });

    it('never lock out the webhook configurations themselves', async () => {
      const port = await deadPort();
      const everything = [{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'], operations: ['*'] }];
      const broken = {
        name: 'everything.test.io',
        clientConfig: { url: `https://127.0.0.1:${port}/` },
        rules: everything,
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      };
      await register('validating', 'broken', [broken]);
      await register('mutating', 'broken', [broken]);
      expect((await post(widget('lock'))).status).to.equal(500);
      expect((await raw(env.cp, 'DELETE', `${ARG}/validatingwebhookconfigurations/broken`)).status).to.equal(200);
      expect((await raw(env.cp, 'DELETE', `${ARG}/mutatingwebhookconfigurations/broken`)).status).to.equal(200);
      expect((await post(widget('lock'))).status).to.equal(201);
    });

    it('cut a webhook that does not answer within timeoutSeconds', async () => {
      hook.handle = () => new Promise<undefined>(() => undefined);
      await register('validating', 'slow', [hookFor(hook, 'slow.test.io', { timeoutSeconds: 1 })]);
      const started = Date.now();
      const res = await post(widget('t1'));
      expect(Date.now() - started).to.be.lessThan(8000);
      expect(res.status).to.equal(500);
      expect(res.json().message)
        .to.include('failed calling webhook "slow.test.io"')
        .and.include('?timeout=1s": context deadline exceeded');
    });

    it('refuse a server whose certificate the caBundle did not sign', async () => {
      await register('validating', 'wrong-ca', [
        hookFor(hook, 'wrong-ca.test.io', { clientConfig: { url: `${hook.url}/v`, caBundle: other.caBundle } }),
      ]);
      const res = await post(widget('c1'));
      expect(res.status).to.equal(500);
      expect(res.json().message)
        .to.include('failed calling webhook "wrong-ca.test.io"')
        .and.include('x509: certificate signed by unknown authority');
      expect(hook.reviews).to.have.length(0);
    });

    it('treat garbage, a wrong uid, a patch from a validating webhook and a huge reply as failed calls', async () => {
      const cases: Array<
        [string, (request: Json, res: import('node:http').ServerResponse) => Json | undefined, string]
      > = [
        [
          'garbage',
          (_r, res) => {
            res.writeHead(200);
            res.end('{"not json');
            return undefined;
          },
          'received invalid webhook response: the reply is not an AdmissionReview',
        ],
        ['uid', () => allow({ uid: 'someone-else' }), 'received invalid webhook response: expected response.uid='],
        [
          'patch',
          (r) => patchOf(r, []),
          'received invalid webhook response: validating webhook may not return response.patch',
        ],
        [
          'huge',
          (_r, res) => {
            res.writeHead(200, { 'Content-Type': 'application/json' });
            const chunk = Buffer.alloc(1024 * 1024, 0x20);
            for (let i = 0; i < 8; i++) res.write(chunk);
            res.end();
            return undefined;
          },
          "the webhook's reply is larger than 6291456 bytes",
        ],
      ];
      for (const [name, handler, message] of cases) {
        hook.handle = handler;
        await register('validating', `bad-${name}`, [hookFor(hook, `${name}.bad.test.io`)]);
        const res = await post(widget(`g-${name}`));
        expect(res.status, name).to.equal(500);
        expect(res.json().message, name)
          .to.include(`failed calling webhook "${name}.bad.test.io"`)
          .and.include(message);
        await raw(env.cp, 'DELETE', `${ARG}/validatingwebhookconfigurations/bad-${name}`);
      }
    });
  });

  describe('which webhooks a request reaches', () => {
    it('resolves clientConfig.service through webhookServiceResolver and verifies <name>.<namespace>.svc', async () => {
      const svc = { namespace: 'webhooks', name: 'machine-webhook', path: '/validate' };
      await register('validating', 'svc', [
        hookFor(hook, 'svc.test.io', { clientConfig: { service: svc, caBundle: hook.caBundle } }),
      ]);
      const unresolved = await post(widget('s1'));
      expect(unresolved.status).to.equal(500);
      expect(unresolved.json().message)
        .to.include('Post "https://machine-webhook.webhooks.svc:443/validate?timeout=10s"')
        .and.include('has no address known to the local control plane');
      services.set('webhooks/machine-webhook', hook.hostPort);
      try {
        expect((await post(widget('s2'))).status).to.equal(201);
        expect(hook.reviews[0]?.path).to.equal('/validate?timeout=10s');
        // A URL base is as good as host:port, and a port-specific entry wins.
        services.set('webhooks/machine-webhook', '127.0.0.1:1');
        services.set('webhooks/machine-webhook:443', hook.url);
        expect((await post(widget('s3'))).status).to.equal(201);
        expect(hook.reviews).to.have.length(2);
      } finally {
        services.clear();
      }
    });

    it('never calls a webhook URL off loopback', async () => {
      await register('validating', 'remote', [
        hookFor(hook, 'remote.test.io', { clientConfig: { url: 'https://169.254.169.254/v' }, failurePolicy: 'Fail' }),
      ]);
      const res = await post(widget('r1'));
      expect(res.status).to.equal(500);
      expect(res.json().message).to.include('the local control plane calls loopback addresses only');
    });

    it('honours namespaceSelector (labels of the namespace) and objectSelector (labels of the new or old object)', async () => {
      await register('validating', 'selectors', [
        hookFor(hook, 'ns.selector.test.io', { namespaceSelector: { matchLabels: { env: 'prod' } } }),
        hookFor(hook, 'obj.selector.test.io', {
          objectSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['infra'] }] },
        }),
      ]);
      const called = () => hook.reviews.map((r) => r.path.split('?')[0]);
      await post(widget('n1'));
      expect(called()).to.deep.equal([]);
      await post(widget('n2', { size: 'small' }, { labels: { team: 'infra' } }));
      expect(called()).to.deep.equal(['/obj.selector.test.io']);
      hook.reviews.length = 0;
      // The label goes in this update: the old object still matches.
      const n2 = (await get('n2')).json();
      delete n2.metadata.labels;
      await raw(env.cp, 'PUT', `${widgets(ns)}/n2`, { body: JSON.stringify(n2), headers: json });
      expect(called()).to.deep.equal(['/obj.selector.test.io']);
      hook.reviews.length = 0;
      await raw(env.cp, 'PATCH', `/api/v1/namespaces/${ns}`, {
        body: JSON.stringify({ metadata: { labels: { env: 'prod' } } }),
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      await post(widget('n3'));
      expect(called()).to.deep.equal(['/ns.selector.test.io']);
    });

    it('honours operations, and names subresources (status, scale) in rules', async () => {
      await post(widget('o1'));
      await register('validating', 'subresources', [
        hookFor(hook, 'update-only.test.io', { rules: [rule({ operations: ['UPDATE'] })] }),
        hookFor(hook, 'status.test.io', { rules: [rule({ resources: ['widgets/status'], operations: ['UPDATE'] })] }),
        hookFor(hook, 'scale.test.io', { rules: [rule({ resources: ['widgets/scale'], operations: ['UPDATE'] })] }),
      ]);
      const called = () => hook.reviews.map((r) => r.path.split('?')[0]);
      await post(widget('o2'));
      expect(called()).to.deep.equal([]);
      const merge = { 'content-type': 'application/merge-patch+json' };
      await raw(env.cp, 'PATCH', `${widgets(ns)}/o1/status`, {
        body: JSON.stringify({ status: { phase: 'Ready' } }),
        headers: merge,
      });
      expect(called()).to.deep.equal(['/status.test.io']);
      expect(hook.reviews[0]?.request).to.deep.include({
        subResource: 'status',
        requestSubResource: 'status',
        operation: 'UPDATE',
      });
      hook.reviews.length = 0;
      const scaled = await raw(env.cp, 'PATCH', `${widgets(ns)}/o1/scale`, {
        body: JSON.stringify({ spec: { replicas: 3 } }),
        headers: merge,
      });
      expect(scaled.status, scaled.text).to.equal(200);
      expect(called()).to.deep.equal(['/scale.test.io']);
      const scaleReview = hook.reviews[0]?.request;
      expect(scaleReview.kind).to.deep.equal({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
      expect(scaleReview.resource).to.deep.equal({ group: W.group, version: 'v1', resource: 'widgets' });
      expect(scaleReview.object.spec.replicas).to.equal(3);
      expect(scaleReview.oldObject.spec.replicas).to.equal(1);
      hook.reviews.length = 0;
      await raw(env.cp, 'PATCH', `${widgets(ns)}/o1`, {
        body: JSON.stringify({ spec: { color: 'red' } }),
        headers: merge,
      });
      expect(called()).to.deep.equal(['/update-only.test.io']);
    });

    it('reviews an eviction as a CREATE of pods/eviction carrying the Eviction', async () => {
      const pod = { metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'i' }] } };
      expect(
        (await raw(env.cp, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: JSON.stringify(pod), headers: json }))
          .status,
      ).to.equal(201);
      hook.handle = (request) =>
        deny(request, { code: 429, reason: 'TooManyRequests', message: 'evictions are paused' });
      await register('validating', 'evictions', [
        hookFor(hook, 'evictions.test.io', {
          rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods/eviction'], operations: ['CREATE'] }],
        }),
      ]);
      const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p1' } };
      const res = await raw(env.cp, 'POST', `/api/v1/namespaces/${ns}/pods/p1/eviction`, {
        body: JSON.stringify(eviction),
        headers: json,
      });
      expect(res.status).to.equal(429);
      expect(res.json().message).to.equal(
        'admission webhook "evictions.test.io" denied the request: evictions are paused',
      );
      expect(hook.reviews[0]?.request).to.deep.include({
        operation: 'CREATE',
        subResource: 'eviction',
        name: 'p1',
        namespace: ns,
        kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
      });
      expect((await raw(env.cp, 'GET', `/api/v1/namespaces/${ns}/pods/p1`)).status).to.equal(200);
    });

    it('lets a mutating webhook change the Scale a scale request writes', async () => {
      await post(widget('sc1'));
      hook.handle = (request) => patchOf(request, [{ op: 'replace', path: '/spec/replicas', value: 5 }]);
      await register('mutating', 'cap', [
        hookFor(hook, 'cap.test.io', { rules: [rule({ resources: ['widgets/scale'], operations: ['UPDATE'] })] }),
      ]);
      const res = await raw(env.cp, 'PATCH', `${widgets(ns)}/sc1/scale`, {
        body: JSON.stringify({ spec: { replicas: 2 } }),
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(res.json().spec.replicas).to.equal(5);
      expect((await get('sc1')).json().spec.replicas).to.equal(5);
    });

    it('matches other served versions of a resource under matchPolicy Equivalent, not under Exact', async () => {
      const crd = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'sprockets.test.envtest.io' },
        spec: {
          group: W.group,
          scope: 'Namespaced',
          names: { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket' },
          versions: ['v2', 'v1'].map((name) => ({
            name,
            served: true,
            storage: name === 'v2',
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          })),
        },
      };
      expect(
        (
          await raw(env.cp, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
            body: JSON.stringify(crd),
            headers: json,
          })
        ).status,
      ).to.equal(201);
      const v1Rule = [rule({ resources: ['sprockets'] })];
      hook.handle = (request) =>
        patchOf(request, [{ op: 'add', path: '/metadata/labels', value: { seen: request.kind.version } }]);
      await register('mutating', 'equivalent', [hookFor(hook, 'equivalent.test.io', { rules: v1Rule })]);
      await register('mutating', 'exact', [hookFor(hook, 'exact.test.io', { rules: v1Rule, matchPolicy: 'Exact' })]);
      const res = await raw(env.cp, 'POST', `/apis/${W.group}/v2/namespaces/${ns}/sprockets`, {
        body: JSON.stringify({ metadata: { name: 'sp1' } }),
        headers: json,
      });
      expect(res.status, res.text).to.equal(201);
      expect(res.json().apiVersion).to.equal(`${W.group}/v2`);
      expect(res.json().metadata.labels).to.deep.equal({ seen: 'v1' });
      expect(hook.reviews.map((r) => r.path.split('?')[0])).to.deep.equal(['/equivalent.test.io']);
      const request = hook.reviews[0]?.request;
      expect(request.kind).to.deep.equal({ group: W.group, version: 'v1', kind: 'Sprocket' });
      expect(request.requestKind).to.deep.equal({ group: W.group, version: 'v2', kind: 'Sprocket' });
      expect(request.object.apiVersion).to.equal(`${W.group}/v1`);
    });
  });

  describe('dryRun and reinvocation', () => {
    it('tells webhooks about dryRun and stores nothing', async () => {
      hook.handle = (request) => patchOf(request, [{ op: 'add', path: '/spec/color', value: 'dry' }]);
      await register('mutating', 'dry', [hookFor(hook, 'dry.test.io', { sideEffects: 'NoneOnDryRun' })]);
      const res = await post(widget('d1'), '?dryRun=All');
      expect(res.status).to.equal(201);
      expect(res.json().spec.color).to.equal('dry');
      expect(hook.reviews[0]?.request.dryRun).to.equal(true);
      expect(hook.reviews[0]?.request.options.dryRun).to.deep.equal(['All']);
      expect((await get('d1')).status).to.equal(404);
    });

    it('calls an IfNeeded webhook once more when a later webhook changed the object, and only then', async () => {
      hook.handle = (request) => {
        const path = hook.reviews[hook.reviews.length - 1]?.path ?? '';
        if (path.startsWith('/b.labeler') && request.object.metadata.name === 'ri1') {
          return patchOf(request, [{ op: 'add', path: '/metadata/labels', value: { b: 'set' } }]);
        }
        return allow(request);
      };
      await register('mutating', 'a-first', [
        hookFor(hook, 'a.reinvoked.test.io', { reinvocationPolicy: 'IfNeeded' }),
        hookFor(hook, 'a.never.test.io'),
      ]);
      await register('mutating', 'b-second', [hookFor(hook, 'b.labeler.test.io')]);
      await post(widget('ri1'));
      const calls = hook.reviews.map(
        (r) => `${r.path.split('?')[0]}:${JSON.stringify(r.request.object.metadata.labels ?? {})}`,
      );
      expect(calls).to.deep.equal([
        '/a.reinvoked.test.io:{}',
        '/a.never.test.io:{}',
        '/b.labeler.test.io:{}',
        '/a.reinvoked.test.io:{"b":"set"}',
      ]);
      hook.reviews.length = 0;
      await post(widget('ri2'));
      expect(hook.reviews.map((r) => r.path.split('?')[0])).to.deep.equal([
        '/a.reinvoked.test.io',
        '/a.never.test.io',
        '/b.labeler.test.io',
      ]);
    });
  });
});
