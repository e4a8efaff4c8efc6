import { expect } from 'chai';
import fc from 'fast-check';
import {
  LabelSelectorError,
  formatLabelSelector,
  labelSelectorMatches,
  parseSelector,
  selectorFromLabelSelector,
  selectorFromSet,
} from '../../../lib/apis/label-selector.js';
import { isValidLabelKey, isValidLabelValue, labelKeyErrors } from '../../../lib/apis/label-validation.js';

describe('label key and value validation', () => {
  it('accepts plain names and DNS-subdomain-prefixed names', () => {
    for (const k of [
      'a',
      'A1',
      'my.name',
      '123-abc',
      'a_b',
      'example.com/MyName',
      'machine.openshift.io/cluster-api-machineset',
      'x'.repeat(63),
    ]) {
      expect(isValidLabelKey(k), k).to.equal(true);
    }
  });

  it('rejects empty parts, bad characters, a 64-character name, an uppercase prefix and two slashes', () => {
    for (const k of [
      '',
      '/a',
      'a/',
      '-a',
      'a-',
      'a b',
      'a$b',
      'x'.repeat(64),
      'Example.com/a',
      'a/b/c',
      `${'p'.repeat(254)}/a`,
      'exa_mple.com/a',
    ]) {
      expect(isValidLabelKey(k), k).to.equal(false);
    }
  });

  it('names the broken rule', () => {
    expect(labelKeyErrors('x'.repeat(64)).join()).to.contain('no more than 63 characters');
    expect(labelKeyErrors('a/').join()).to.contain('name part must be non-empty');
    expect(labelKeyErrors('/a').join()).to.contain('prefix part must be non-empty');
  });

  it('accepts empty values and ≤63-character alphanumeric-bounded values; rejects the rest', () => {
    for (const v of ['', 'a', 'my_value', '12345', 'a.b-c_d', 'v'.repeat(63)])
      expect(isValidLabelValue(v), v).to.equal(true);
    for (const v of ['-a', 'a-', '_', 'a b', 'a/b', 'v'.repeat(64), 'ä'])
      expect(isValidLabelValue(v), v).to.equal(false);
  });
});

describe('parseSelector (string syntax)', () => {
  it('treats the empty string and whitespace as "everything"', () => {
    for (const s of ['', '   ']) {
      const sel = parseSelector(s);
      expect(sel.empty).to.equal(true);
      expect(sel.matches(undefined)).to.equal(true);
      expect(sel.matches({ a: 'b' })).to.equal(true);
      expect(sel.toString()).to.equal('');
    }
  });

  it('parses every operator, sorting requirements by key', () => {
    const sel = parseSelector('z=1, y==2,x!=3,w in (b,a),v notin (c),u,!t');
    expect(sel.empty).to.equal(false);
    expect(sel.requirements).to.deep.equal([
      { key: 't', operator: '!', values: [] },
      { key: 'u', operator: 'exists', values: [] },
      { key: 'v', operator: 'notin', values: ['c'] },
      { key: 'w', operator: 'in', values: ['a', 'b'] },
      { key: 'x', operator: '!=', values: ['3'] },
      { key: 'y', operator: '==', values: ['2'] },
      { key: 'z', operator: '=', values: ['1'] },
    ]);
    expect(sel.toString()).to.equal('!t,u,v notin (c),w in (a,b),x!=3,y==2,z=1');
  });

  it('ignores whitespace around tokens', () => {
    expect(parseSelector('  a = b ,  c  in  ( x , y ) ').toString()).to.equal('a=b,c in (x,y)');
    expect(parseSelector('\ta\n').toString()).to.equal('a');
  });

  it('reads `a=` as equal to the empty value and empty slots in a set as the empty value', () => {
    expect(parseSelector('a=').requirements).to.deep.equal([{ key: 'a', operator: '=', values: [''] }]);
    expect(parseSelector('a=,b').requirements.map((r) => r.key)).to.deep.equal(['a', 'b']);
    expect(parseSelector('a==').requirements).to.deep.equal([{ key: 'a', operator: '==', values: [''] }]);
    expect(parseSelector('a in ()').requirements[0]!.values).to.deep.equal(['']);
    expect(parseSelector('a in (x,)').requirements[0]!.values).to.deep.equal(['', 'x']);
    expect(parseSelector('a in (,x)').requirements[0]!.values).to.deep.equal(['', 'x']);
    expect(parseSelector('a in (x,,y)').requirements[0]!.values).to.deep.equal(['', 'x', 'y']);
    expect(parseSelector('a in (,)').requirements[0]!.values).to.deep.equal(['']);
    expect(parseSelector('a in (x,,,y)').requirements[0]!.values).to.deep.equal(['', 'x', 'y']);
    expect(() => parseSelector('a in (x,,)')).to.throw(LabelSelectorError);
    expect(() => parseSelector('a in (,,)')).to.throw(LabelSelectorError);
  });

  it('accepts the words in and notin as values but not as keys', () => {
    expect(parseSelector('a=in').requirements[0]!.values).to.deep.equal(['in']);
    expect(parseSelector('a in (notin)').requirements[0]!.values).to.deep.equal(['notin']);
    expect(() => parseSelector('in=a')).to.throw(LabelSelectorError);
  });

  it('de-duplicates and sorts set values', () => {
    expect(parseSelector('a in (c,b,c,a)').requirements[0]!.values).to.deep.equal(['a', 'b', 'c']);
  });

  it('rejects malformed selectors with LabelSelectorError', () => {
    for (const s of [
      ',',
      'a,',
      ',a',
      'a b',
      'a=b=c',
      'a in b',
      'a in (b',
      'a in (b c)',
      '!a=b',
      '!',
      'a!',
      '(a)',
      'a=(b)',
      'a>1',
      'a<1',
      'a=b c',
    ]) {
      expect(() => parseSelector(s), s).to.throw(LabelSelectorError);
    }
  });

  it('rejects invalid keys and values, naming them', () => {
    expect(() => parseSelector('-a=b')).to.throw(LabelSelectorError, '"-a"');
    expect(() => parseSelector(`a=${'v'.repeat(64)}`)).to.throw(LabelSelectorError, 'no more than 63');
    expect(() => parseSelector('a in (ok,-bad)')).to.throw(LabelSelectorError, '"-bad"');
    expect(() => parseSelector('a/b/c')).to.throw(LabelSelectorError);
  });

  describe('matching', () => {
    const labels = { app: 'web', tier: 'front', empty: '' };
    const cases: Array<[string, boolean]> = [
      ['app=web', true],
      ['app==web', true],
      ['app=db', false],
      ['missing=x', false],
      ['app!=db', true],
      ['app!=web', false],
      ['missing!=x', true],
      ['app in (db,web)', true],
      ['app in (db)', false],
      ['missing in (x)', false],
      ['app notin (db)', true],
      ['app notin (web)', false],
      ['missing notin (x)', true],
      ['app', true],
      ['missing', false],
      ['!missing', true],
      ['!app', false],
      ['empty=', true],
      ['empty', true],
      ['app=web,tier=front', true],
      ['app=web,tier=back', false],
    ];
    for (const [s, want] of cases) {
      it(`"${s}" ${want ? 'matches' : 'does not match'} app=web,tier=front,empty=`, () => {
        expect(parseSelector(s).matches(labels)).to.equal(want);
      });
    }

    it('treats undefined labels as no labels', () => {
      expect(parseSelector('!a').matches(undefined)).to.equal(true);
      expect(parseSelector('a!=b').matches(undefined)).to.equal(true);
      expect(parseSelector('a').matches(undefined)).to.equal(false);
    });

    it('does not see inherited object properties as labels', () => {
      expect(parseSelector('toString').matches({})).to.equal(false);
      expect(parseSelector('!constructor').matches({})).to.equal(true);
    });
  });

  it('round-trips: parsing toString() gives the same requirements', () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/).filter((k) => k !== 'in' && k !== 'notin');
    const value = fc.stringMatching(/^[a-z0-9]{0,4}$/);
    const req = fc.oneof(
      fc.tuple(key, fc.constantFrom('=', '==', '!='), value).map(([k, op, v]) => `${k}${op}${v}`),
      fc
        .tuple(key, fc.constantFrom('in', 'notin'), fc.uniqueArray(value, { minLength: 1, maxLength: 3 }))
        .map(([k, op, vs]) => `${k} ${op} (${vs.join(',')})`),
      key,
      key.map((k) => `!${k}`),
    );
    fc.assert(
      fc.property(fc.array(req, { maxLength: 5 }), (reqs) => {
        const sel = parseSelector(reqs.join(','));
        const again = parseSelector(sel.toString());
        expect(again.requirements).to.deep.equal(sel.requirements);
        expect(again.toString()).to.equal(sel.toString());
      }),
    );
  });
});

describe('selectorFromLabelSelector (LabelSelector objects)', () => {
  it('matches everything when undefined or empty', () => {
    for (const ls of [undefined, {}, { matchLabels: {}, matchExpressions: [] }]) {
      const sel = selectorFromLabelSelector(ls);
      expect(sel.empty).to.equal(true);
      expect(sel.matches({ x: 'y' })).to.equal(true);
      expect(sel.matches(undefined)).to.equal(true);
    }
  });

  it('turns matchLabels into equality and maps the four expression operators', () => {
    const sel = selectorFromLabelSelector({
      matchLabels: { role: 'worker' },
      matchExpressions: [
        { key: 'zone', operator: 'In', values: ['b', 'a'] },
        { key: 'arch', operator: 'NotIn', values: ['s390x'] },
        { key: 'gpu', operator: 'Exists' },
        { key: 'spot', operator: 'DoesNotExist' },
      ],
    });
    expect(sel.toString()).to.equal('arch notin (s390x),gpu,role=worker,!spot,zone in (a,b)');
    expect(sel.matches({ role: 'worker', zone: 'a', gpu: '1' })).to.equal(true);
    expect(sel.matches({ role: 'worker', zone: 'a', gpu: '1', spot: 'true' })).to.equal(false);
    expect(sel.matches({ role: 'worker', zone: 'c', gpu: '1' })).to.equal(false);
    expect(sel.matches({ role: 'worker', zone: 'a' })).to.equal(false);
    expect(sel.matches({ role: 'worker', zone: 'a', gpu: '1', arch: 's390x' })).to.equal(false);
    expect(sel.matches({ role: 'infra', zone: 'a', gpu: '1' })).to.equal(false);
  });

  it('requires values for In/NotIn and forbids them for Exists/DoesNotExist', () => {
    expect(() => selectorFromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] })).to.throw(
      LabelSelectorError,
      'matchExpressions[0].values',
    );
    expect(() => selectorFromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'NotIn' }] })).to.throw(
      LabelSelectorError,
    );
    expect(() =>
      selectorFromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }),
    ).to.throw(LabelSelectorError);
    expect(() =>
      selectorFromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x'] }] }),
    ).to.throw(LabelSelectorError);
  });

  it('rejects unknown operators and invalid keys/values', () => {
    expect(() =>
      selectorFromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Gt' as never, values: ['1'] }] }),
    ).to.throw(LabelSelectorError, '"Gt" is not a valid label selector operator');
    expect(() => selectorFromLabelSelector({ matchLabels: { 'bad key': 'x' } })).to.throw(
      LabelSelectorError,
      '"bad key"',
    );
    expect(() => selectorFromLabelSelector({ matchLabels: { a: 'bad value' } })).to.throw(
      LabelSelectorError,
      '"bad value"',
    );
    expect(() => selectorFromLabelSelector({ matchExpressions: [{ key: '', operator: 'Exists' }] })).to.throw(
      LabelSelectorError,
    );
  });

  it('labelSelectorMatches is selectorFromLabelSelector(...).matches', () => {
    expect(labelSelectorMatches({ matchLabels: { a: 'b' } }, { a: 'b', c: 'd' })).to.equal(true);
    expect(labelSelectorMatches({ matchLabels: { a: 'b' } }, { a: 'c' })).to.equal(false);
    expect(labelSelectorMatches({ matchLabels: { a: 'b' } }, undefined)).to.equal(false);
    expect(labelSelectorMatches(undefined, undefined)).to.equal(true);
  });
});

describe('formatLabelSelector (FormatLabelSelector)', () => {
  it("prints '<none>' for an empty or missing selector", () => {
    expect(formatLabelSelector(undefined)).to.equal('<none>');
    expect(formatLabelSelector({})).to.equal('<none>');
  });

  it('prints requirements sorted by key, matchLabels as k=v', () => {
    expect(
      formatLabelSelector({
        matchLabels: {
          'machine.openshift.io/cluster-api-machineset': 'ms-1',
          'machine.openshift.io/cluster-api-cluster': 'c1',
        },
      }),
    ).to.equal('machine.openshift.io/cluster-api-cluster=c1,machine.openshift.io/cluster-api-machineset=ms-1');
    expect(
      formatLabelSelector({
        matchLabels: { b: '1' },
        matchExpressions: [
          { key: 'a', operator: 'NotIn', values: ['y', 'x'] },
          { key: 'c', operator: 'DoesNotExist' },
          { key: 'd', operator: 'Exists' },
        ],
      }),
    ).to.equal('a notin (x,y),b=1,!c,d');
  });

  it("prints '<error>' for an invalid selector", () => {
    expect(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In' }] })).to.equal('<error>');
    expect(formatLabelSelector({ matchLabels: { '-': 'x' } })).to.equal('<error>');
  });

  it('produces a string parseSelector reads back to an equivalent selector', () => {
    const ls = {
      matchLabels: { x: '1' },
      matchExpressions: [{ key: 'y', operator: 'In' as const, values: ['a', 'b'] }],
    };
    const parsed = parseSelector(formatLabelSelector(ls));
    expect(parsed.toString()).to.equal(selectorFromLabelSelector(ls).toString());
    expect(parsed.matches({ x: '1', y: 'b' })).to.equal(true);
  });
});

describe('selectorFromSet (equality on every label of a set)', () => {
  it('requires each label with its value and prints as k=v sorted by key', () => {
    const sel = selectorFromSet({ role: 'worker', app: 'x' });
    expect(sel.toString()).to.equal('app=x,role=worker');
    expect(sel.matches({ app: 'x', role: 'worker', extra: 'y' })).to.equal(true);
    expect(sel.matches({ app: 'x' })).to.equal(false);
  });

  it('matches everything for an empty or missing set and rejects invalid labels', () => {
    expect(selectorFromSet(undefined).empty).to.equal(true);
    expect(selectorFromSet({}).matches(undefined)).to.equal(true);
    expect(() => selectorFromSet({ a: 'not valid' })).to.throw(LabelSelectorError);
  });
});
