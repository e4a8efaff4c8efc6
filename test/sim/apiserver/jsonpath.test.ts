import { expect } from 'chai';
import fc from 'fast-check';
import { evalJsonPath, JsonPathError } from '../../../sim/apiserver/jsonpath.js';
import { machine } from './printing-fixtures.js';

describe('evalJsonPath', () => {
  const cases: Array<{ path: string; want: unknown[] }> = [
    { path: '.status.phase', want: ['Running'] },
    { path: '{.status.phase}', want: ['Running'] },
    { path: '$.status.phase', want: ['Running'] },
    { path: 'status.phase', want: ['Running'] },
    { path: ".metadata.annotations['machine\\.openshift\\.io/instance-state']", want: ['running'] },
    { path: ".metadata.annotations['machine.openshift.io/instance-state']", want: ['running'] },
    { path: '.metadata.annotations.machine\\.openshift\\.io/instance-state', want: ['running'] },
    { path: '.metadata.labels.machine\\.openshift\\.io/instance-type', want: ['m5.large'] },
    { path: '.status.addresses[0].address', want: ['10.0.0.1'] },
    { path: '.status.addresses[-1].type', want: ['InternalDNS'] },
    { path: '.status.addresses[*].type', want: ['InternalIP', 'InternalDNS'] },
    { path: '.status.addresses[0:1].type', want: ['InternalIP'] },
    { path: '.status.addresses[0,1].address', want: ['10.0.0.1', 'ip-10-0-0-1'] },
    { path: '.status.conditions[?(@.type=="Ready")].status', want: ['False'] },
    { path: ".status.conditions[?(@.type=='Ready')].reason", want: ['Booting'] },
    { path: '.status.conditions[?(@.type!="Ready")].type', want: ['Drainable'] },
    { path: '.status.conditions[?(@.reason)].type', want: ['Ready'] },
    { path: '.status.replicas', want: [3] },
    { path: '.status.nodeRef', want: [{ name: 'node-1' }] },
    { path: '.status.nodeRef.*', want: ['node-1'] },
    { path: '..address', want: ['10.0.0.1', 'ip-10-0-0-1'] },
    { path: ".metadata['name','namespace']", want: ['m-1', 'openshift-machine-api'] },
    { path: '.status.missing', want: [] },
    { path: '.status.addresses[9].address', want: [] },
    { path: '.status.phase.deeper', want: [] },
  ];
  for (const c of cases) {
    it(`evaluates ${c.path}`, () => {
      expect(evalJsonPath(machine, c.path)).to.deep.equal(c.want);
    });
  }

  it('compares numbers in filters', () => {
    const obj = { items: [{ n: 1 }, { n: 5 }, { n: 10 }] };
    expect(evalJsonPath(obj, '.items[?(@.n>4)].n')).to.deep.equal([5, 10]);
    expect(evalJsonPath(obj, '.items[?(@.n<=5)].n')).to.deep.equal([1, 5]);
    expect(evalJsonPath(obj, '.items[?(@.n==10)].n')).to.deep.equal([10]);
  });

  it('reports an unparsable expression with a JsonPathError', () => {
    expect(() => evalJsonPath(machine, '.status.conditions[?(@.type=="Ready"')).to.throw(JsonPathError);
    expect(() => evalJsonPath(machine, '.a[?(@.b==)]')).to.throw(JsonPathError);
  });

  it('never throws anything but JsonPathError on arbitrary input', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.string({ maxLength: 20 }), (obj, path) => {
        try {
          expect(evalJsonPath(obj, path)).to.be.an('array');
        } catch (err) {
          expect(err).to.be.instanceOf(JsonPathError);
        }
      }),
      { numRuns: 300 },
    );
  });
});
