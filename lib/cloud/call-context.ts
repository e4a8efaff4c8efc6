// What a cloud call made inside a reconcile may know of its caller, without every provider passing it down
// through its SDK: whose call it is (the Machine) and how long it may queue for the cloud's rate before the
// reconcile is better off giving its worker back and coming again at its turn. Carried by AsyncLocalStorage,
// so it reaches the rate limiter through any SDK's own promise chains.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface CloudCallContext {
  /** Whose calls these are (a Machine's uid): the turn a deferred call was promised is kept under it. */
  key: string;
  /**
   * A call that would wait longer than this for its token is deferred instead (CloudRateLimitedError); the
   * limiter may hold its line shorter still (DeferredTurns).
   */
  deferBeyondMs: number;
}

const storage = new AsyncLocalStorage<CloudCallContext>();

/** Runs `fn` with cloud calls made inside it carrying `context`. */
export function withCloudCallContext<T>(context: CloudCallContext, fn: () => Promise<T>): Promise<T> {
  return storage.run(context, fn);
}

/** The context of the cloud call being made, if it is made inside withCloudCallContext. */
export function currentCloudCallContext(): CloudCallContext | undefined {
  return storage.getStore();
}
