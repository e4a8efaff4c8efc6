// Which webhooks a request reaches: rules (operations, scope, groups, versions, resources and
// subresources with wildcards), selectors and matchPolicy, decided without any network.
import { expect } from 'chai';
import { TypeRegistry } from '../../../../sim/apiserver/registry.js';
import type { ResourceType } from '../../../../sim/apiserver/resource-type.js';
import type { AdmissionAttributes } from '../../../../sim/apiserver/webhooks/attributes.js';
import type { RuleWithOperations, Webhook } from '../../../../sim/apiserver/webhooks/configuration.js';
import { matchWebhook, ruleMatches } from '../../../../sim/apiserver/webhooks/matcher.js';
import { StatusError } from '../../../../sim/apiserver/errors.js';

const registry = new TypeRegistry();
const type = (key: string): ResourceType => {
  const t = registry.byTypeKey(key);
  if (!t) throw new Error(`no type ${key}`);
  return t;
};
const pods = type('/pods');
const namespaces = type('/namespaces');
const nodes = type('/nodes');

function attrs(t: ResourceType, extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE',
    type: t,
    version: 'v1',
    kind: { group: t.group, version: 'v1', kind: t.kind },
    subresource: '',
    namespace: t.namespaced ? 'default' : t === namespaces ? 'ns1' : '',
    name: t === namespaces ? 'ns1' : 'x',
    object: { metadata: { name: 'x', labels: { app: 'web' } } },
    dryRun: false,
    options: {},
    ...extra,
  };
}

function rule(extra: RuleWithOperations = {}): RuleWithOperations {
  return { apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['CREATE'], scope: '*', ...extra };
}

const gvr = (a: AdmissionAttributes) => ({ group: a.type.group, version: a.version, resource: a.type.plural });
const matches = (r: RuleWithOperations, a: AdmissionAttributes) => ruleMatches(r, a, gvr(a));

describe('envtest webhook matching', () => {
  it('matches operations exactly or by "*"', () => {
    expect(matches(rule(), attrs(pods))).to.equal(true);
    expect(matches(rule({ operations: ['UPDATE'] }), attrs(pods))).to.equal(false);
    expect(matches(rule({ operations: ['*'] }), attrs(pods, { operation: 'DELETE' }))).to.equal(true);
  });

  it('matches groups, versions and resources with wildcards, and subresources only when named', () => {
    expect(matches(rule({ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }), attrs(pods))).to.equal(true);
    expect(matches(rule({ apiGroups: ['apps'] }), attrs(pods))).to.equal(false);
    expect(matches(rule({ apiVersions: ['v2'] }), attrs(pods))).to.equal(false);
    const eviction = attrs(pods, { subresource: 'eviction' });
    expect(matches(rule(), eviction)).to.equal(false);
    expect(matches(rule({ resources: ['*'] }), eviction)).to.equal(false);
    expect(matches(rule({ resources: ['pods/eviction'] }), eviction)).to.equal(true);
    expect(matches(rule({ resources: ['pods/*'] }), eviction)).to.equal(true);
    expect(matches(rule({ resources: ['*/eviction'] }), eviction)).to.equal(true);
    expect(matches(rule({ resources: ['*/*'] }), eviction)).to.equal(true);
    expect(matches(rule({ resources: ['*/*'] }), attrs(pods))).to.equal(true);
    expect(matches(rule({ resources: ['pods/status'] }), eviction)).to.equal(false);
  });

  it('treats a Namespace as cluster-scoped although its requests carry its name as namespace', () => {
    const nsRule = (scope: string) => rule({ resources: ['namespaces'], scope });
    expect(matches(nsRule('Cluster'), attrs(namespaces))).to.equal(true);
    expect(matches(nsRule('Namespaced'), attrs(namespaces))).to.equal(false);
    expect(matches(rule({ scope: 'Namespaced' }), attrs(pods))).to.equal(true);
    expect(matches(rule({ scope: 'Cluster' }), attrs(pods))).to.equal(false);
    expect(matches(rule({ resources: ['nodes'], scope: 'Cluster' }), attrs(nodes))).to.equal(true);
  });

  it('reads namespaceSelector from the namespace, or from the Namespace object itself, and 404s for a missing namespace', () => {
    const hook: Webhook = {
      name: 'h.test.io',
      rules: [rule({ resources: ['*'] })],
      namespaceSelector: { matchLabels: { env: 'prod' } },
      matchPolicy: 'Equivalent',
    };
    const labels = (ns: string) => (ns === 'default' ? { env: 'prod' } : ns === 'dev' ? { env: 'dev' } : undefined);
    expect(matchWebhook(hook, 'c/0', attrs(pods), labels)).to.not.equal(undefined);
    expect(matchWebhook(hook, 'c/0', attrs(pods, { namespace: 'dev' }), labels)).to.equal(undefined);
    expect(() => matchWebhook(hook, 'c/0', attrs(pods, { namespace: 'gone' }), labels)).to.throw(
      StatusError,
      'namespaces "gone" not found',
    );
    const nsHook = { ...hook, rules: [rule({ resources: ['namespaces'] })] };
    expect(
      matchWebhook(
        nsHook,
        'c/0',
        attrs(namespaces, { object: { metadata: { name: 'ns1', labels: { env: 'prod' } } } }),
        () => undefined,
      ),
    ).to.not.equal(undefined);
    // Cluster-scoped kinds other than Namespace are never excluded by a namespaceSelector.
    expect(
      matchWebhook({ ...hook, rules: [rule({ resources: ['nodes'] })] }, 'c/0', attrs(nodes), () => undefined),
    ).to.not.equal(undefined);
  });

  it('matches objectSelector on the new or the old object', () => {
    const hook: Webhook = {
      name: 'h.test.io',
      rules: [rule({ operations: ['*'] })],
      objectSelector: { matchLabels: { app: 'db' } },
    };
    const none = () => undefined;
    expect(matchWebhook(hook, 'c/0', attrs(pods), none)).to.equal(undefined);
    expect(
      matchWebhook(
        hook,
        'c/0',
        attrs(pods, { operation: 'DELETE', object: undefined, oldObject: { metadata: { labels: { app: 'db' } } } }),
        none,
      ),
    ).to.not.equal(undefined);
  });

  it('falls back to another served version under matchPolicy Equivalent and tells the webhook that version', () => {
    const multi: ResourceType = {
      ...pods,
      group: 'x.test.io',
      plural: 'things',
      kind: 'Thing',
      versions: [
        { name: 'v2', printerColumns: [], statusSubresource: false },
        { name: 'v1', printerColumns: [], statusSubresource: false },
      ],
    };
    const a = attrs(multi, { version: 'v2', kind: { group: 'x.test.io', version: 'v2', kind: 'Thing' } });
    const r = rule({ apiGroups: ['x.test.io'], apiVersions: ['v1'], resources: ['things'] });
    const inv = matchWebhook({ name: 'h.test.io', rules: [r], matchPolicy: 'Equivalent' }, 'c/0', a, () => ({}));
    expect(inv?.resource).to.deep.equal({ group: 'x.test.io', version: 'v1', resource: 'things' });
    expect(inv?.kind).to.deep.equal({ group: 'x.test.io', version: 'v1', kind: 'Thing' });
    expect(matchWebhook({ name: 'h.test.io', rules: [r], matchPolicy: 'Exact' }, 'c/0', a, () => ({}))).to.equal(
      undefined,
    );
  });
});
