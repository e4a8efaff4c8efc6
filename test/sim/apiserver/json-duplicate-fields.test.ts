import { expect } from 'chai';
import fc from 'fast-check';
import { duplicateJsonFields } from '../../../sim/apiserver/json-duplicate-fields.js';

describe('envtest: fields a JSON text gives twice', () => {
  it("names each repeat by its path, in kube's form, in the order they appear", () => {
    expect(duplicateJsonFields('{"a":1,"a":2,"b":{"c":[{"d":1,"d":2},{"e":{"f":0,"f":1}}]},"b":null}')).to.deep.equal([
      'a',
      'b.c[0].d',
      'b.c[1].e.f',
      'b',
    ]);
  });

  it('compares keys after unescaping, and never takes string values or keys inside strings for keys', () => {
    expect(duplicateJsonFields('{"k":"{\\"k\\":1,\\"k\\":2}","\\u006b":"v"}')).to.deep.equal(['k']);
    expect(duplicateJsonFields('{"a":"a","b":["a","a"],"c":{"a":"a"}}')).to.deep.equal([]);
  });

  it('finds nothing in any text JSON.stringify writes', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => duplicateJsonFields(JSON.stringify(v)).length === 0));
  });

  it('finds the repeat wherever it is put in an object', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { minKeys: 1 }), fc.nat(), (obj, at) => {
        const entries = Object.entries(obj).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
        const [key] = Object.keys(obj);
        entries.splice(at % (entries.length + 1), 0, `${JSON.stringify(key)}:0`);
        return JSON.stringify(duplicateJsonFields(`{${entries.join(',')}}`)) === JSON.stringify([key]);
      }),
    );
  });

  it('scans a large, deep text in one linear pass', () => {
    const deep = `${'{"a":'.repeat(900)}1${'}'.repeat(900)}`;
    expect(duplicateJsonFields(deep)).to.deep.equal([]);
    const wide = `{${Array.from({ length: 50_000 }, (_, i) => `"k${i % 25_000}":${i}`).join(',')}}`;
    expect(duplicateJsonFields(wide)).to.have.length(25_000);
  });
});
