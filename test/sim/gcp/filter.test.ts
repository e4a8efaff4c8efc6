import { expect } from 'chai';
import { parseFilter } from '../../../sim/gcp/index.js';
import { GceApiError } from '../../../sim/gcp/api-error.js';

const inst = {
  name: 'worker-foo-1',
  status: 'RUNNING',
  labels: { role: 'worker', env: 'prod', 'kubernetes-io-cluster-bench': 'owned' },
  tags: { items: ['web', 'ssh'] },
  scheduling: { automaticRestart: false },
  creationTimestamp: '2026-01-01T10:00:00.000-07:00',
  cpus: 8,
};
const matches = (f: string) => parseFilter(f)(inst);

describe('GCE list filter expressions', () => {
  it('matches everything when empty', () => {
    expect(matches('')).to.equal(true);
  });

  it('compares fields with = and != on quoted or bare values, and nested keys', () => {
    expect(matches('name = "worker-foo-1"')).to.equal(true);
    expect(matches('labels.role = worker')).to.equal(true);
    expect(matches('labels.role != worker')).to.equal(false);
    expect(matches('labels.missing != x')).to.equal(true);
    expect(matches('scheduling.automaticRestart = false')).to.equal(true);
  });

  it('matches the cluster ownership label, alone or OR-ed with names as a burst list sends it', () => {
    expect(matches('labels.kubernetes-io-cluster-bench = "owned"')).to.equal(true);
    expect(matches('labels.kubernetes-io-cluster-other = "owned"')).to.equal(false);
    expect(matches('(name = "worker-bar-2") OR (labels.kubernetes-io-cluster-bench = "owned")')).to.equal(true);
    expect(matches('(name = "worker-bar-2") OR (labels.kubernetes-io-cluster-other = "owned")')).to.equal(false);
  });

  it('supports * wildcards, has (:) and presence (:*)', () => {
    expect(matches('name = worker-*')).to.equal(true);
    expect(matches('labels.env:*')).to.equal(true);
    expect(matches('labels.nope:*')).to.equal(false);
    expect(matches('name:foo')).to.equal(true);
  });

  it('matches any element of a list field', () => {
    expect(matches('tags.items = ssh')).to.equal(true);
    expect(matches('tags.items = ftp')).to.equal(false);
  });

  it('combines with AND, OR, NOT, parentheses and juxtaposition', () => {
    expect(matches('status = RUNNING AND labels.role = worker')).to.equal(true);
    expect(matches('(status = STOPPED) OR (labels.env = prod)')).to.equal(true);
    expect(matches('NOT status = RUNNING')).to.equal(false);
    expect(matches('(status = RUNNING) (labels.env = dev)')).to.equal(false);
  });

  it('orders numbers numerically and timestamps as text', () => {
    expect(matches('cpus > 4')).to.equal(true);
    expect(matches('cpus <= 4')).to.equal(false);
    expect(matches('creationTimestamp < "2026-02-01"')).to.equal(true);
  });

  it('takes the eq/ne form gcloud sends as a whole-field regular expression', () => {
    expect(matches('name eq ".*\\bfoo\\b.*"')).to.equal(true);
    expect(matches('name eq "foo"')).to.equal(false);
    expect(matches("name ne 'worker-.*'")).to.equal(false);
    expect(matches('(name eq worker-foo-1)(status eq RUNNING)')).to.equal(true);
  });

  it("reads eq/ne patterns as RE2 (GCE's syntax), not as ECMAScript", () => {
    // RE2 inline flags and one-letter Unicode classes; an ECMAScript RegExp rejects or misreads both.
    expect(matches('name eq "(?i)WORKER-FOO-1"')).to.equal(true);
    expect(matches('name eq "\\pL+-\\pL+-1"')).to.equal(true);
  });

  it('matches eq patterns and * wildcards in linear time, however the request is written', () => {
    // Each of these takes a backtracking engine longer than the test timeout.
    const long = { name: `${'a'.repeat(64)}!`, status: 'a'.repeat(5_000) };
    expect(parseFilter('name eq "(a|a)*"')(long)).to.equal(false);
    expect(parseFilter(`status = ${'*a'.repeat(30)}*b`)(long)).to.equal(false);
    expect(parseFilter(`status:${'a*'.repeat(30)}b`)(long)).to.equal(false);
  });

  it('rejects malformed expressions with a 400 on field filter', () => {
    for (const bad of ['name =', '(name = a', 'name ~ a', '= a', 'name eq "(["']) {
      let err: unknown;
      try {
        parseFilter(bad);
      } catch (e) {
        err = e;
      }
      expect(err, bad).to.be.instanceOf(GceApiError);
      expect((err as GceApiError).status).to.equal(400);
      expect((err as GceApiError).message).to.contain("Invalid value for field 'filter'");
    }
  });
});
