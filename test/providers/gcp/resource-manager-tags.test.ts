import { expect } from 'chai';
import { FakeClock, InvalidMachineConfigurationError } from '../../../lib/index.js';
import { TagResolver, mergeTags, type TagValueLookup } from '../../../providers/gcp/index.js';

const signal = new AbortController().signal;

describe('GCP resource manager tags', () => {
  it('merge the spec first and add Infrastructure tags for keys the spec does not set', () => {
    const merged = mergeTags(
      [{ parentID: 'p', key: 'env', value: 'prod' }],
      [
        { parentID: 'p', key: 'env', value: 'dev' },
        { parentID: 'p', key: 'team', value: 'a' },
      ],
    );
    expect(merged).to.deep.equal([
      { parentID: 'p', key: 'env', value: 'prod' },
      { parentID: 'p', key: 'team', value: 'a' },
    ]);
  });

  it('resolve to tagKeys → tagValues bindings, looking each tag up once', async () => {
    const asked: string[] = [];
    const lookup: TagValueLookup = async (name) => (
      asked.push(name),
      { name: `tagValues/${asked.length}`, parent: `tagKeys/${name.split('/')[1]}` }
    );
    const r = new TagResolver(lookup, new FakeClock());
    const tags = [{ parentID: 'p', key: 'env', value: 'prod' }];
    expect(await r.resolve(tags, undefined, signal)).to.deep.equal({ 'tagKeys/env': 'tagValues/1' });
    await r.resolve(tags, undefined, signal);
    expect(asked).to.deep.equal(['p/env/prod']);
    expect(await r.resolve([], undefined, signal)).to.equal(undefined);
  });

  it('fail the Machine, naming the field, when a tag does not exist or cannot be read', async () => {
    const r = new TagResolver(async () => undefined, new FakeClock());
    const err = await r.resolve([{ parentID: 'p', key: 'env', value: 'nope' }], undefined, signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    expect((err as InvalidMachineConfigurationError).message).to.contain('p/env/nope');
    expect((err as InvalidMachineConfigurationError).field).to.equal('spec.providerSpec.value.resourceManagerTags');
  });
});
