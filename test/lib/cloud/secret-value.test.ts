import { expect } from 'chai';
import { secretBytes, secretText } from '../../../lib/cloud/secret-value.js';

describe('secretBytes and secretText', () => {
  const secret = {
    metadata: { namespace: 'ns', name: 's' },
    data: { both: Buffer.from('from data').toString('base64') },
    stringData: { both: 'from stringData', plain: 'héllo' },
  };

  it('read data (base64) first, then stringData (plain text)', () => {
    expect(secretText(secret, 'both')).to.equal('from data');
    expect(secretBytes(secret, 'both')?.toString('utf8')).to.equal('from data');
    expect(secretText(secret, 'plain')).to.equal('héllo');
    expect(secretBytes(secret, 'plain')).to.deep.equal(Buffer.from('héllo', 'utf8'));
  });

  it('say undefined for a key the Secret lacks, and keep an empty value', () => {
    expect(secretText(secret, 'absent')).to.equal(undefined);
    expect(secretBytes(secret, 'absent')).to.equal(undefined);
    expect(secretText({ metadata: {}, data: { empty: '' } }, 'empty')).to.equal('');
    expect(secretBytes({ metadata: {} }, 'k')).to.equal(undefined);
  });
});
