import { expect } from 'chai';
import { ChangeListeners } from '../../../../sim/kit/index.js';

describe('ChangeListeners', () => {
  it('notifies every listener added, until it is removed', () => {
    const listeners = new ChangeListeners();
    const heard: string[] = [];
    const removeA = listeners.add(() => heard.push('a'));
    listeners.add(() => heard.push('b'));
    listeners.notify();
    removeA();
    listeners.notify();
    expect(heard).to.deep.equal(['a', 'b', 'b']);
  });

  it('a throwing listener neither stops the others nor reaches the notifier', () => {
    const listeners = new ChangeListeners();
    const heard: string[] = [];
    listeners.add(() => {
      throw new Error('test listener broke');
    });
    listeners.add(() => heard.push('after'));
    expect(() => listeners.notify()).not.to.throw();
    expect(heard).to.deep.equal(['after']);
  });

  it('a listener that removes itself while being notified does not disturb that round', () => {
    const listeners = new ChangeListeners();
    const heard: string[] = [];
    const remove = listeners.add(() => {
      heard.push('once');
      remove();
    });
    listeners.add(() => heard.push('other'));
    listeners.notify();
    listeners.notify();
    expect(heard).to.deep.equal(['once', 'other', 'other']);
  });
});
