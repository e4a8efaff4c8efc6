import { expect } from 'chai';
import { CapacityTable } from '../../../../sim/kit/cloud-emulator/capacity-table.js';

describe('emulated capacity table', () => {
  it('has capacity for everything unless told otherwise', () => {
    expect(new CapacityTable().isExhausted('m5.large', 'us-east-1a')).to.equal(false);
  });

  it('starts the types it is given out of capacity in every zone', () => {
    const t = new CapacityTable(['p5.48xlarge']);
    expect(t.isExhausted('p5.48xlarge', 'us-east-1a')).to.equal(true);
    expect(t.isExhausted('p5.48xlarge', 'eu-west-1b')).to.equal(true);
    expect(t.isExhausted('m5.large', 'us-east-1a')).to.equal(false);
  });

  it('a zone rule wins over the every-zone rule, both ways', () => {
    const t = new CapacityTable(['p5.48xlarge']);
    t.set('p5.48xlarge', 'us-east-1c', true);
    expect(t.isExhausted('p5.48xlarge', 'us-east-1c')).to.equal(false);
    expect(t.isExhausted('p5.48xlarge', 'us-east-1a')).to.equal(true);
    t.set('m5.large', 'us-east-1a', false);
    expect(t.isExhausted('m5.large', 'us-east-1a')).to.equal(true);
    expect(t.isExhausted('m5.large', 'us-east-1b')).to.equal(false);
  });

  it('setting every zone drops the zone rules of that type', () => {
    const t = new CapacityTable(['p5.48xlarge']);
    t.set('p5.48xlarge', 'us-east-1c', true);
    t.set('p5.48xlarge', '*', false);
    expect(t.isExhausted('p5.48xlarge', 'us-east-1c')).to.equal(true);
    t.set('p5.48xlarge', undefined, true);
    expect(t.isExhausted('p5.48xlarge', 'us-east-1a')).to.equal(false);
  });
});

describe('emulated capacity table, by market', () => {
  it('keeps spot and on-demand apart, and a market rule wins over every market', () => {
    const t = new CapacityTable();
    t.set('m5.large', 'us-east-1a', false, 'spot');
    expect(t.isExhausted('m5.large', 'us-east-1a', 'spot')).to.equal(true);
    expect(t.isExhausted('m5.large', 'us-east-1a', 'on-demand')).to.equal(false);
    expect(t.isExhausted('m5.large', 'us-east-1a'), 'on-demand when unsaid').to.equal(false);
    t.set('m5.large', '*', false, '*');
    t.set('m5.large', '*', true, 'spot');
    expect(t.isExhausted('m5.large', 'us-east-1b', 'spot')).to.equal(false);
    expect(t.isExhausted('m5.large', 'us-east-1b', 'on-demand')).to.equal(true);
  });

  it('a rule for every market drops the market rules it covers', () => {
    const t = new CapacityTable();
    t.set('m5.large', 'us-east-1a', false, 'spot');
    t.set('m5.large', 'us-east-1a', true);
    expect(t.isExhausted('m5.large', 'us-east-1a', 'spot')).to.equal(false);
  });
});
