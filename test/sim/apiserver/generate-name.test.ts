import { expect } from 'chai';
import { GENERATED_NAME_ALPHABET, generateName } from '../../../sim/apiserver/generate-name.js';

describe('envtest: generateName as kube-apiserver generates names', () => {
  it('appends 5 characters from kube’s alphabet (no vowels, no 0, 1 or 3) to a short prefix', () => {
    expect(GENERATED_NAME_ALPHABET).to.equal('bcdfghjklmnpqrstvwxz2456789');
    const picks = [0, 0.5, 0.999, 0.1, 0.3];
    expect(generateName('worker-', () => picks.shift()!)).to.equal('worker-br9dl');
  });

  it('keeps at most 58 characters of the prefix, so no generated name is longer than 63', () => {
    const at = (n: number) => generateName('x'.repeat(n), () => 0);
    expect(at(57)).to.equal(`${'x'.repeat(57)}bbbbb`);
    expect(at(58)).to.equal(`${'x'.repeat(58)}bbbbb`);
    expect(at(59)).to.equal(`${'x'.repeat(58)}bbbbb`);
    expect(at(248)).to.have.length(63);
  });
});
