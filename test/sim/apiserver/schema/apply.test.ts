import { expect } from 'chai';
import fc from 'fast-check';
import { applySchema } from '../../../../sim/apiserver/schema/index.js';
import { machineSetSchema, valid } from './fixtures.js';

describe('applySchema', () => {
  it('runs prune, null pruning, defaults and validation on a copy, in that order', () => {
    const input = { ...valid, spec: { replicas: null, selector: {}, unknown: 1 } };
    const r = applySchema(input, machineSetSchema);
    expect(r.object).to.deep.equal({ ...valid, spec: { replicas: 1, selector: {} } });
    expect(r.causes).to.deep.equal([]);
    expect(input.spec).to.deep.equal({ replicas: null, selector: {}, unknown: 1 });
  });
});

describe('applySchema: properties', () => {
  const json = fc.jsonValue({ maxDepth: 4 });

  it('never throws on arbitrary JSON, and keeps no undeclared field', () => {
    fc.assert(
      fc.property(json, (value) => {
        const r = applySchema(value, machineSetSchema);
        const allowedTop = new Set(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
        const obj = r.object;
        if (typeof obj === 'object' && obj !== null && !Array.isArray(obj)) {
          for (const k of Object.keys(obj)) expect(allowedTop.has(k), k).to.equal(true);
          const spec = (obj as Record<string, unknown>).spec;
          if (typeof spec === 'object' && spec !== null && !Array.isArray(spec)) {
            const allowedSpec = new Set(['replicas', 'deletePolicy', 'minReadySeconds', 'selector', 'template']);
            for (const k of Object.keys(spec)) expect(allowedSpec.has(k), k).to.equal(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('is idempotent: applying the schema to its own output changes nothing', () => {
    const specArb = fc.record(
      {
        replicas: fc.oneof(fc.integer({ min: -3, max: 5 }), fc.constant(null)),
        deletePolicy: fc.constantFrom('Random', 'Newest', 'Bogus'),
        selector: fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 })),
        junk: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(specArb, (spec) => {
        const once = applySchema({ ...valid, spec }, machineSetSchema);
        const twice = applySchema(once.object, machineSetSchema);
        expect(twice.object).to.deep.equal(once.object);
        expect(twice.causes).to.deep.equal(once.causes);
      }),
      { numRuns: 200 },
    );
  });
});
