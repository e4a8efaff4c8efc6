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

/**
 * Heap bytes that `times` runs of `run` leave reachable once they are done: the heap after a full collection
 * following them, less the heap after one before them (a first run, not counted, loads what any run loads).
 */
export async function growthOver(times: number, run: () => Promise<unknown>): Promise<number> {
  await run();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < times; i++) await run();
  gc();
  return process.memoryUsage().heapUsed - before;
}
