import { expect } from 'chai';
import { EventOnce } from '../../../lib/healthcheck/event-once.js';

describe('EventOnce', () => {
  it('emits a message once per key until it changes or the episode ends', () => {
    const once = new EventOnce();
    const sent: string[] = [];
    const emit = (k: string, m: string) => once.emit(k, m, () => sent.push(`${k}:${m}`));
    emit('a', 'x');
    emit('a', 'x');
    emit('b', 'x');
    emit('a', 'y');
    once.reset('a');
    emit('a', 'y');
    expect(sent).to.deep.equal(['a:x', 'b:x', 'a:y', 'a:y']);
  });

  it('forgets keys under a prefix that are not kept', () => {
    const once = new EventOnce();
    const sent: string[] = [];
    const emit = (k: string) => once.emit(k, 'm', () => sent.push(k));
    emit('ns/mhc|1');
    emit('ns/mhc|2');
    emit('other|1');
    once.retain('ns/mhc|', new Set(['ns/mhc|2']));
    emit('ns/mhc|1');
    emit('ns/mhc|2');
    emit('other|1');
    expect(sent).to.deep.equal(['ns/mhc|1', 'ns/mhc|2', 'other|1', 'ns/mhc|1']);
  });
});
