// manifests/rbac against what the binaries really call: every request of a recorded AWS run must be allowed
// by the rules bound to the machine-api-controllers ServiceAccount, and every right a role grants must have
// been used by the binary it is written for, or be listed below with the reason the run did not need it.
import { expect } from 'chai';
import type { RecordedRequest } from '../../sim/apiserver/index.js';
import { readManifestDir, type ManifestDoc } from './manifest-files.js';
import { recordedRun } from './recorded-run.js';

const SA = { name: 'machine-api-controllers', namespace: 'openshift-machine-api' };
const BINARY_ANNOTATION = 'machine-api-ts.openshift.io/binary';

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
}

interface Grant {
  /** undefined: cluster-wide (ClusterRoleBinding). */
  namespace?: string;
  role: ManifestDoc;
}

/** Rights the recorded run does not exercise, each with why a binary needs it. */
const notExercised: Array<{ binary: string; verb: string; group: string; resource: string; why: string }> = [
  {
    binary: 'machine-api-provider',
    verb: 'delete',
    group: '',
    resource: 'nodes',
    why: "a deleted Machine's Node is removed once its instance is gone (in the run the kubelet simulator removed it first)",
  },
  {
    binary: 'machine-api-provider',
    verb: 'get',
    group: 'apps',
    resource: 'daemonsets',
    why: 'drain leaves the pods of existing DaemonSets alone (the run had none)',
  },
  {
    binary: 'machine-api-provider',
    verb: 'get',
    group: '',
    resource: 'persistentvolumeclaims',
    why: 'volumes of pods left on a drained Node are not waited for: their claims name them (the run had no such pods)',
  },
  {
    binary: 'machine-api-provider',
    verb: 'get',
    group: '',
    resource: 'secrets',
    why: 'Secrets come from the informer cache; one the cache has not seen yet (just created, or read before the first sync) is read live',
  },
  {
    binary: 'machine-api-provider',
    verb: 'get',
    group: 'config.openshift.io',
    resource: 'infrastructures',
    why: 'read once at start; the local control plane serves no Infrastructure',
  },
  {
    binary: 'machine-api-provider',
    verb: 'get',
    group: '',
    resource: 'configmaps',
    why: "the AWS binary's main reads the CA bundle of ConfigMap openshift-config-managed/kube-cloud-config once at start; the recorded run builds the binaries in-process, past that step (test/e2e/local-rbac.test.ts runs them as processes)",
  },
  {
    binary: 'machineset-controller',
    verb: 'get',
    group: 'config.openshift.io',
    resource: 'infrastructures',
    why: 'the admission webhooks read it once at start; the recorded run has them disabled (the local control plane serves no Infrastructure)',
  },
  {
    binary: 'machineset-controller',
    verb: 'get',
    group: '',
    resource: 'secrets',
    why: "the validating webhooks warn when a providerSpec's credentials Secret does not exist; the recorded run has them disabled",
  },
  {
    binary: 'machineset-controller',
    verb: 'patch',
    group: 'machine.openshift.io',
    resource: 'machines',
    why: 'adopting orphan Machines and releasing those whose labels stopped matching',
  },
  {
    binary: 'machine-healthcheck',
    verb: 'patch',
    group: 'machine.openshift.io',
    resource: 'machines',
    why: 'the external-remediation annotation, when a MachineHealthCheck names a remediation template',
  },
  {
    binary: 'machine-healthcheck',
    verb: 'get',
    group: '',
    resource: 'nodes',
    why: 'a node missing from the informer cache is read live before it counts as gone (timing)',
  },
  // The event recorder patches the count of a repeated event; whether one repeats in a run is timing.
  {
    binary: 'machineset-controller',
    verb: 'patch',
    group: '',
    resource: 'events',
    why: 'repeated events are aggregated by patching their count',
  },
  {
    binary: 'machine-healthcheck',
    verb: 'patch',
    group: '',
    resource: 'events',
    why: 'repeated events are aggregated by patching their count',
  },
  {
    binary: 'machine-api-provider',
    verb: 'patch',
    group: '',
    resource: 'events',
    why: 'repeated events are aggregated by patching their count',
  },
];

/** Roles whose binary records its requests under another name (none: each binary runs as itself, NodeLink too). */
const recordedAs: Record<string, string> = {};

const resourceOf = (r: RecordedRequest) => (r.subresource ? `${r.resource}/${r.subresource}` : r.resource);
const describe_ = (r: { verb: string; group: string; resource: string }) =>
  `${r.verb} ${r.group || 'core'}/${r.resource}`;

function rulesOf(role: ManifestDoc): Rule[] {
  return (role.rules as Rule[] | undefined) ?? [];
}

function ruleAllows(rule: Rule, verb: string, group: string, resource: string): boolean {
  const has = (list: string[] | undefined, v: string) => (list ?? []).includes(v) || (list ?? []).includes('*');
  return (
    has(rule.apiGroups, group) && has(rule.resources, resource) && has(rule.verbs, verb) && !rule.resourceNames?.length
  );
}

function grantsTo(docs: ManifestDoc[]): Grant[] {
  const find = (kind: string, name: string, namespace?: string) =>
    docs.find(
      (d) =>
        d.kind === kind &&
        d.metadata?.name === name &&
        (namespace === undefined || d.metadata?.namespace === namespace),
    );
  const grants: Grant[] = [];
  for (const b of docs.filter((d) => d.kind === 'ClusterRoleBinding' || d.kind === 'RoleBinding')) {
    const subjects = (b.subjects as Array<{ kind: string; name: string; namespace?: string }> | undefined) ?? [];
    if (!subjects.some((s) => s.kind === 'ServiceAccount' && s.name === SA.name && s.namespace === SA.namespace))
      continue;
    const ref = b.roleRef as { kind: string; name: string };
    const namespace = b.kind === 'RoleBinding' ? b.metadata?.namespace : undefined;
    const role = ref.kind === 'Role' ? find('Role', ref.name, namespace) : find('ClusterRole', ref.name);
    if (!role) throw new Error(`${b.file}: ${b.kind} ${b.metadata?.name} refers to a missing ${ref.kind} ${ref.name}`);
    grants.push({ namespace, role });
  }
  return grants;
}

function allowed(grants: Grant[], r: RecordedRequest): boolean {
  return grants.some(
    (g) =>
      (g.namespace === undefined || g.namespace === r.namespace) &&
      rulesOf(g.role).some((rule) => ruleAllows(rule, r.verb, r.group, resourceOf(r))),
  );
}

describe('manifests/rbac', function () {
  this.timeout(180_000);
  const docs = readManifestDir('rbac');

  it('parses, and every role and binding names what it refers to', () => {
    expect(docs.length).to.be.greaterThan(0);
    for (const d of docs) {
      expect(d.apiVersion, d.file).to.match(/^(v1|rbac\.authorization\.k8s\.io\/v1)$/);
      expect(['ServiceAccount', 'ClusterRole', 'Role', 'ClusterRoleBinding', 'RoleBinding'], d.file).to.include(d.kind);
      expect(d.metadata?.name, d.file).to.be.a('string');
    }
    expect(
      docs.some(
        (d) => d.kind === 'ServiceAccount' && d.metadata?.name === SA.name && d.metadata.namespace === SA.namespace,
      ),
    ).to.equal(true);
    expect(() => grantsTo(docs)).to.not.throw();
  });

  it('grants no wildcard and no right on named resources only', () => {
    for (const role of docs.filter((d) => d.kind === 'Role' || d.kind === 'ClusterRole')) {
      for (const rule of rulesOf(role)) {
        const all = [...(rule.apiGroups ?? []), ...(rule.resources ?? []), ...(rule.verbs ?? [])];
        expect(all, `${role.kind} ${role.metadata?.name}`).to.not.include('*');
      }
    }
  });

  it('says for each role which binary it is for', () => {
    for (const role of docs.filter((d) => (d.kind === 'Role' || d.kind === 'ClusterRole') && rulesOf(d).length > 0)) {
      expect(role.metadata?.annotations?.[BINARY_ANNOTATION], `${role.kind} ${role.metadata?.name}`).to.be.a('string');
    }
  });

  it('allows every API request each binary made in the recorded AWS run', async () => {
    const run = await recordedRun();
    expect(run.requests.length).to.be.greaterThan(100);
    for (const name of run.binaryNames)
      expect(
        run.requests.some((r) => r.userAgent === name),
        `requests by ${name}`,
      ).to.equal(true);
    const grants = grantsTo(docs);
    const denied = new Set(
      run.requests
        .filter((r) => !allowed(grants, r))
        .map((r) => `${r.userAgent}: ${r.verb} ${r.group || 'core'}/${resourceOf(r)} in ${r.namespace ?? '(cluster)'}`),
    );
    expect([...denied]).to.deep.equal([]);
  });

  it('allows each binary what it called through the roles written for it alone', async () => {
    const run = await recordedRun();
    const grants = grantsTo(docs);
    const missing = new Set<string>();
    for (const r of run.requests) {
      const own = grants.filter((g) => {
        const b = g.role.metadata?.annotations?.[BINARY_ANNOTATION];
        return b !== undefined && r.userAgent?.startsWith(b);
      });
      if (!allowed(own, r)) missing.add(`${r.userAgent}: ${r.verb} ${r.group || 'core'}/${resourceOf(r)}`);
    }
    expect([...missing]).to.deep.equal([]);
  });

  it('grants no verb on a resource that its binary never used, except the documented ones', async () => {
    const run = await recordedRun();
    const unused: string[] = [];
    for (const role of docs.filter((d) => d.kind === 'Role' || d.kind === 'ClusterRole')) {
      const annotated = role.metadata?.annotations?.[BINARY_ANNOTATION] ?? '';
      const binary = recordedAs[annotated] ?? annotated;
      for (const rule of rulesOf(role)) {
        for (const group of rule.apiGroups ?? []) {
          for (const resource of rule.resources ?? []) {
            for (const verb of rule.verbs ?? []) {
              const used = run.requests.some(
                (r) =>
                  r.userAgent?.startsWith(binary) && r.verb === verb && r.group === group && resourceOf(r) === resource,
              );
              const documented = notExercised.some(
                (n) => n.binary === binary && n.verb === verb && n.group === group && n.resource === resource,
              );
              if (!used && !documented)
                unused.push(
                  `${role.kind} ${role.metadata?.name} (${annotated}): ${describe_({ verb, group, resource })}`,
                );
            }
          }
        }
      }
    }
    expect(unused).to.deep.equal([]);
  });

  it('documents only rights that a role of that binary grants', () => {
    const roles = docs.filter((d) => d.kind === 'Role' || d.kind === 'ClusterRole');
    for (const n of notExercised) {
      const granted = roles.some(
        (role) =>
          role.metadata?.annotations?.[BINARY_ANNOTATION] === n.binary &&
          rulesOf(role).some((rule) => ruleAllows(rule, n.verb, n.group, n.resource)),
      );
      expect(granted, `documented but not granted: ${n.binary} ${describe_(n)}`).to.equal(true);
      expect(n.why.length, describe_(n)).to.be.greaterThan(10);
    }
  });
});
