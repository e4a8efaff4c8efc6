// Heap a value keeps reachable, for the tests that hold providers' cached views to a budget.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * Heap bytes per item of what `make` returns: the heap with it held less the heap once it is let go, each
 * after a full collection, so what making it left elsewhere (clients' and emulators' own state) is not counted.
 */
export async function retainedPerItem<T>(make: () => Promise<T[]>): Promise<number> {
  // Made in a frame of its own, which is gone once it returns: a frame's registers may hold what it awaited.
  const holder = await held(make);
  const n = holder.items?.length ?? 0;
  gc();
  const holding = process.memoryUsage().heapUsed;
  holder.items = undefined;
  gc();
  const released = process.memoryUsage().heapUsed;
  return (holding - released) / Math.max(1, n);
}

async function held<T>(make: () => Promise<T[]>): Promise<{ items?: T[] }> {
  return { items: await make() };
}
