import { expect } from 'chai';
import { afterCalls } from '../../../lib/index.js';

class Api {
  #secret = 'inner';
  readonly log: string[] = [];
  get label(): string {
    return `api:${this.#secret}`;
  }
  async remove(id: string): Promise<string> {
    this.log.push(`remove ${id}`);
    if (id === 'bad') throw new Error('refused');
    return `${this.#secret}:${id}`;
  }
  count(n: number): number {
    if (n < 0) throw new RangeError('negative');
    return n + 1;
  }
  read(id: string): string {
    return `${this.#secret}:${id}`;
  }
}

describe('afterCalls', () => {
  it('runs a hook with the arguments once a hooked async call resolved or rejected', async () => {
    const seen: string[] = [];
    const api = afterCalls(new Api(), { remove: (id) => seen.push(`after ${id}`) });
    const pending = api.remove('i-1');
    expect(seen).to.deep.equal([], 'not before the call settles');
    expect(await pending).to.equal('inner:i-1');
    await api.remove('bad').catch(() => undefined);
    expect(seen).to.deep.equal(['after i-1', 'after bad']);
  });

  it('runs a hook after a hooked synchronous call returned or threw, and keeps the outcome', () => {
    const seen: number[] = [];
    const api = afterCalls(new Api(), { count: (n) => seen.push(n) });
    expect(api.count(1)).to.equal(2);
    expect(() => api.count(-1)).to.throw(RangeError);
    expect(seen).to.deep.equal([1, -1]);
  });

  it('leaves other members alone and calls every method on the original object (#private state works)', () => {
    const inner = new Api();
    const api = afterCalls(inner, { remove: () => undefined });
    expect(api.read('x')).to.equal('inner:x');
    expect(api.label).to.equal('api:inner');
    expect(api.log).to.equal(inner.log);
  });

  it('hands out the same wrapped method on every access, so a call costs no new function', () => {
    const api = afterCalls(new Api(), { count: () => undefined });
    expect(api.count).to.equal(api.count);
    expect(api.read).to.equal(api.read);
  });
});
