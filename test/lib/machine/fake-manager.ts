// A ControllerManager that records what is registered on it, over an in-memory client and informers.
import { Registry } from 'prom-client';
import type { KubeObject } from '../../../lib/apis/meta.js';
import type { Resource } from '../../../lib/client/resources.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import type { Controller, ControllerManager, ControllerOptions, Informer } from '../../../lib/runtime/types.js';
import { ListEvents, quietLog } from './fixtures.js';
import { MemoryInformer, MemoryKubeClient } from './memory-kube.js';

export function fakeManager() {
  const client = new MemoryKubeClient();
  const informers = new Map<string, MemoryInformer<KubeObject>>();
  const controllers: ControllerOptions[] = [];
  const recorders: string[] = [];
  const mgr: ControllerManager = {
    client,
    clock: new FakeClock(),
    logger: quietLog,
    metrics: new Registry(),
    informer<T extends KubeObject>(r: Resource<T>): Informer<T> {
      let i = informers.get(r.plural);
      if (!i) {
        i = new MemoryInformer<KubeObject>(client, r);
        informers.set(r.plural, i);
      }
      return i as unknown as Informer<T>;
    },
    eventRecorder(component: string) {
      recorders.push(component);
      return new ListEvents();
    },
    addController(opts: ControllerOptions): Controller {
      controllers.push(opts);
      return { name: opts.name, enqueue() {}, enqueueAfter() {} };
    },
    add() {},
  };
  return { mgr, controllers, recorders, informers };
}
