// What a user sees with the real kubectl when the local control plane calls admission webhooks:
// webhook configurations applied, listed and deleted; a denial printed with the webhook's name; a
// webhook warning printed as "Warning: ..."; a default set by a mutating webhook stored.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from '../../../../sim/apiserver/index.js';
import { hasKubectl, runKubectl } from '../../../e2e/support/kubectl.js';
import { fixtureCrds } from '../helpers.js';
import { allow, deny, patchOf, startWebhookServer, type WebhookServer } from './webhook-server.js';

describe('kubectl against the local control plane with admission webhooks', function () {
  this.timeout(60000);
  let cp: ControlPlane;
  let hook: WebhookServer;
  let dir: string;

  const kubectl = (args: string[], input?: string) =>
    runKubectl(join(dir, 'kubeconfig'), args, { input, timeoutMs: 30_000 });

  before(async function () {
    if (!hasKubectl()) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'kubectl-admission-'));
    hook = await startWebhookServer();
    hook.handle = (request) => {
      const path = hook.reviews[hook.reviews.length - 1]?.path ?? '';
      if (path.startsWith('/mutate')) {
        return request.object.spec.color
          ? allow(request)
          : patchOf(request, [{ op: 'add', path: '/spec/color', value: 'blue' }]);
      }
      if (request.object.spec.size === 'large') {
        return deny(request, { code: 403, reason: 'Forbidden', message: 'spec.size: large widgets are not allowed' });
      }
      return allow(
        request,
        request.object.spec.size === 'medium' ? { warnings: ['spec.size: medium widgets are deprecated'] } : {},
      );
    };
    cp = await startControlPlane({ crdDirs: [fixtureCrds], kubeconfigPath: join(dir, 'kubeconfig') });
  });
  after(async () => {
    await cp?.stop();
    await hook?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const configurations = () => `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: widgets
webhooks:
- name: default.widgets.test.io
  clientConfig:
    url: ${hook.url}/mutate
    caBundle: ${hook.caBundle}
  rules:
  - apiGroups: [test.envtest.io]
    apiVersions: [v1]
    resources: [widgets]
    operations: [CREATE]
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: widgets
webhooks:
- name: size.widgets.test.io
  clientConfig:
    url: ${hook.url}/validate
    caBundle: ${hook.caBundle}
  rules:
  - apiGroups: [test.envtest.io]
    apiVersions: [v1]
    resources: [widgets]
    operations: [CREATE, UPDATE]
  sideEffects: None
  admissionReviewVersions: [v1]
`;

  const widgetYaml = (name: string, size: string) =>
    `apiVersion: test.envtest.io/v1\nkind: Widget\nmetadata:\n  name: ${name}\n  namespace: default\nspec:\n  size: ${size}\n`;

  it('applies, lists and refuses webhook configurations', async () => {
    const applied = await kubectl(['apply', '-f', '-'], configurations());
    expect(applied.code, applied.stderr).to.equal(0);
    expect(applied.stdout).to.include('mutatingwebhookconfiguration.admissionregistration.k8s.io/widgets created');
    const listed = await kubectl(['get', 'validatingwebhookconfigurations']);
    expect(listed.code, listed.stderr).to.equal(0);
    expect(listed.stdout).to.match(/^NAME\s+WEBHOOKS\s+AGE\nwidgets\s+1\s+/);
    const invalid = await kubectl(
      ['apply', '-f', '-'],
      configurations()
        .split('---')[1]
        ?.replace('sideEffects: None', 'sideEffects: Some')
        .replace('name: widgets', 'name: bad') ?? '',
    );
    expect(invalid.code).to.not.equal(0);
    expect(invalid.stderr).to.include(
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
    );
  });

  it('prints a denial with the webhook name, and stores nothing', async () => {
    const res = await kubectl(['apply', '-f', '-'], widgetYaml('big', 'large'));
    expect(res.code).to.not.equal(0);
    expect(res.stderr).to.include('Error from server (Forbidden)');
    expect(res.stderr).to.include(
      'admission webhook "size.widgets.test.io" denied the request: spec.size: large widgets are not allowed',
    );
    expect((await kubectl(['get', 'widget', 'big'])).code).to.not.equal(0);
  });

  it('prints webhook warnings as "Warning:" and stores the mutating webhook default', async () => {
    const res = await kubectl(['apply', '-f', '-'], widgetYaml('mid', 'medium'));
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stderr).to.include('Warning: spec.size: medium widgets are deprecated');
    const color = await kubectl(['get', 'widget', 'mid', '-o', 'jsonpath={.spec.color}']);
    expect(color.stdout).to.equal('blue');
  });

  it('deletes webhook configurations, after which writes are no longer reviewed', async () => {
    const res = await kubectl(['delete', 'validatingwebhookconfiguration', 'widgets']);
    expect(res.code, res.stderr).to.equal(0);
    const created = await kubectl(['apply', '-f', '-'], widgetYaml('big', 'large'));
    expect(created.code, created.stderr).to.equal(0);
  });
});
