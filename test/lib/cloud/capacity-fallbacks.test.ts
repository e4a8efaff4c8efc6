import { expect } from 'chai';
import {
  MAX_FALLBACKS,
  decodeFallbacks,
  mergeFallback,
  type FallbackDecoding,
  type FieldIssue,
} from '../../../lib/cloud/index.js';

interface Spec {
  type: string;
  zone?: string;
  subnet?: string;
  image?: string;
  market?: { spot?: boolean };
}

const PATH = 'spec.template.spec.providerSpec.value';

// A cloud whose type names end in "-arm" for Arm CPUs, whose zones need a subnet, and whose image is required.
const decoding: FallbackDecoding<Spec> = {
  rules: { fields: ['type', 'zone', 'subnet', 'market'], together: [['zone', 'subnet']] },
  decode(value, path) {
    const spec = value as unknown as Spec;
    const errors: FieldIssue[] = [];
    if (!spec.image) errors.push({ field: `${path}.image`, message: `${path}.image: Required value: an image` });
    if (spec.type === 'bad') errors.push({ field: `${path}.type`, message: `${path}.type: Invalid value: "bad"` });
    return { spec, errors };
  },
  typeOf: (s) => ({ field: 'type', name: s.type, architecture: s.type.endsWith('-arm') ? 'arm64' : 'amd64' }),
};

const decode = (value: Record<string, unknown>, primaryErrors: FieldIssue[] = []) =>
  decodeFallbacks(value, PATH, decoding.decode(value, PATH).spec, primaryErrors, decoding);

describe('providerSpec fallbacks', () => {
  it('merges each entry over the primary, objects key by key, and a null removes the key', () => {
    const primary = { type: 'a', image: 'i', market: { spot: true, price: '1' }, fallbacks: [{}] };
    expect(mergeFallback(primary, { type: 'b', market: { spot: false } })).to.deep.equal({
      type: 'b',
      image: 'i',
      market: { spot: false, price: '1' },
    });
    expect(mergeFallback(primary, { market: null })).to.deep.equal({ type: 'a', image: 'i' });
  });

  it('decodes each entry whole, in order; without the key there are none', () => {
    const out = decode({ type: 'a', image: 'i', fallbacks: [{ type: 'b' }, { zone: 'z2', subnet: 's2' }] });
    expect(out.errors).to.deep.equal([]);
    expect(out.specs).to.deep.equal([
      { type: 'b', image: 'i' },
      { type: 'a', image: 'i', zone: 'z2', subnet: 's2' },
    ]);
    expect(decode({ type: 'a', image: 'i' })).to.deep.equal({ specs: [], errors: [] });
  });

  it('names the entry in the path of an issue of the merged spec, and does not repeat the primary issues', () => {
    const primaryErrors = [{ field: `${PATH}.image`, message: `${PATH}.image: Required value: an image` }];
    const out = decode({ type: 'a', fallbacks: [{ type: 'c' }, { type: 'bad' }] }, primaryErrors);
    expect(out.errors.map((e) => e.field)).to.deep.equal([`${PATH}.fallbacks[1].type`]);
  });

  it('refuses a field outside the capacity fields, naming it and the fields allowed', () => {
    const out = decode({ type: 'a', image: 'i', fallbacks: [{ type: 'b', image: 'other' }] });
    expect(out.errors).to.have.length(1);
    expect(out.errors[0]!.field).to.equal(`${PATH}.fallbacks[0].image`);
    expect(out.errors[0]!.message).to.contain('Forbidden').and.contain('type, zone, subnet, market');
  });

  it('refuses a zone without its subnet', () => {
    const out = decode({ type: 'a', image: 'i', fallbacks: [{ zone: 'z2' }] });
    expect(out.errors.map((e) => e.field)).to.deep.equal([`${PATH}.fallbacks[0].subnet`]);
  });

  it('refuses an entry of another CPU architecture than the primary', () => {
    const out = decode({ type: 'a', image: 'i', fallbacks: [{ type: 'b' }, { type: 'b-arm' }] });
    expect(out.errors.map((e) => e.field)).to.deep.equal([`${PATH}.fallbacks[1].type`]);
    expect(out.errors[0]!.message).to.contain('arm64').and.contain('amd64');
  });

  it(`refuses more than ${MAX_FALLBACKS} entries, an entry that is not an object or empty, and a list that is not one`, () => {
    const many = Array.from({ length: MAX_FALLBACKS + 1 }, (_, i) => ({ type: `t${i}` }));
    expect(decode({ type: 'a', image: 'i', fallbacks: many }).errors[0]!.message).to.contain(
      `must have at most ${MAX_FALLBACKS} items`,
    );
    expect(
      decode({ type: 'a', image: 'i', fallbacks: Array.from({ length: MAX_FALLBACKS }, () => ({ type: 'b' })) }).errors,
    ).to.deep.equal([]);
    expect(decode({ type: 'a', image: 'i', fallbacks: ['b', {}] }).errors.map((e) => e.field)).to.deep.equal([
      `${PATH}.fallbacks[0]`,
      `${PATH}.fallbacks[1]`,
    ]);
    expect(decode({ type: 'a', image: 'i', fallbacks: { type: 'b' } }).errors[0]!.field).to.equal(`${PATH}.fallbacks`);
  });
});
