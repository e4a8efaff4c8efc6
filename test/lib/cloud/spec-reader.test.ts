import { expect } from 'chai';
import {
  MAX_SPEC_STRING_LENGTH,
  SpecReader,
  invalidValue,
  keyPath,
  previewValue,
} from '../../../lib/cloud/spec-reader.js';

/** `[[[...'x'...]]]` nested `depth` levels, built the way the API server hands it over: parsed from JSON text. */
const nested = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}"x"${']'.repeat(depth)}`);

describe('SpecReader', () => {
  describe('previewValue, the value quoted in an issue', () => {
    it('prints short values as JSON', () => {
      expect(previewValue('a')).to.equal('"a"');
      expect(previewValue({ a: [1, true, null] })).to.equal('{"a":[1,true,null]}');
      expect(previewValue(undefined)).to.equal('undefined');
    });

    it('cuts long values at 80 characters', () => {
      const p = previewValue('x'.repeat(5 * 1024 * 1024));
      expect(p).to.have.length(80);
      expect(p.endsWith('...')).to.equal(true);
    });

    it('previews a value nested 10,000 levels deep (JSON.stringify overflows the stack on it)', () => {
      expect(previewValue(nested(10_000))).to.equal(`${'['.repeat(77)}...`);
    });
  });

  it('reports a value nested 10,000 levels deep as a wrong type, naming the field', () => {
    const reader = new SpecReader();
    const o = reader.object({ ami: nested(10_000) }, 'spec.providerSpec.value');
    o?.object('ami', () => ({}));
    expect(reader.errors.map((e) => e.field)).to.deep.equal(['spec.providerSpec.value.ami']);
    expect(reader.errors[0]?.message).to.have.length.below(200);
  });

  it(`rejects a string longer than ${MAX_SPEC_STRING_LENGTH} characters, quoting only its start`, () => {
    const reader = new SpecReader();
    expect(reader.string('x'.repeat(MAX_SPEC_STRING_LENGTH + 1), 'spec.f')).to.equal(undefined);
    expect(reader.errors.map((e) => e.field)).to.deep.equal(['spec.f']);
    expect(reader.errors[0]?.message).to.contain('Too long').and.have.length.below(200);
    expect(new SpecReader().string('x'.repeat(MAX_SPEC_STRING_LENGTH), 'spec.f')).to.have.length(
      MAX_SPEC_STRING_LENGTH,
    );
  });

  it('reads own properties only, so nothing inherited from Object.prototype passes for a field', () => {
    const reader = new SpecReader();
    const o = reader.object(JSON.parse('{"name":"n"}'), 'spec');
    expect(o?.has('constructor')).to.equal(false);
    expect(o?.string('constructor')).to.equal(undefined);
    expect(o?.string('toString')).to.equal(undefined);
    expect(reader.errors).to.deep.equal([]);
  });

  it('reports a "__proto__" key as an unknown field instead of following it', () => {
    const reader = new SpecReader();
    const o = reader.object(JSON.parse('{"__proto__":{"name":"polluted"}}'), 'spec');
    expect(o?.string('name')).to.equal(undefined);
    o?.done();
    expect(reader.unknownFields).to.deep.equal(['spec.__proto__']);
  });

  it('shortens a hostile key in a field path', () => {
    expect(keyPath('spec', 'k'.repeat(1_000_000))).to.equal(`spec.${'k'.repeat(61)}...`);
    expect(keyPath('spec', 'short')).to.equal('spec.short');
  });

  it('invalidValue uses the Kubernetes field.Error wording', () => {
    expect(invalidValue('spec.f', -1, 'must be at least 0')).to.deep.equal({
      field: 'spec.f',
      message: 'spec.f: Invalid value: -1: must be at least 0',
    });
  });
});
