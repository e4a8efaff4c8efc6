// What the shared scenario suites (a missing Secret, refused credentials) have in common: a mocha suite over a
// harness built before its tests and cleaned up after them, and the look for a Warning event on an object.
import type { CoreEvent } from '../../lib/apis/core.js';
import type { KubeClient } from '../../lib/client/kube-client.js';
import { Events } from '../../lib/client/resources.js';
import { bddGlobals, type BddGlobals } from './bdd-globals.js';

/**
 * Registers `describe(title)` with the harness `setup` builds before its tests and cleans up after them; `body`
 * registers the tests, reading the harness through `harness()` (set once `before` ran).
 */
export function harnessSuite<H extends { cleanup(): Promise<void> }>(
  suiteName: string,
  title: string,
  setup: () => Promise<H>,
  body: (harness: () => H, g: BddGlobals) => void,
): void {
  const g = bddGlobals(suiteName);
  g.describe(title, () => {
    let h: H | undefined;
    g.before(async () => {
      h = await setup();
    });
    g.after(async () => {
      await h?.cleanup();
    });
    body(() => {
      if (!h) throw new Error(`${suiteName}: the harness is not set up yet`);
      return h;
    }, g);
  });
}

/** Warning events found on an object, and a line for each event it has (what a timeout says it saw). */
export async function warningsOn(
  client: KubeClient,
  namespace: string,
  objectName: string,
): Promise<{ find(reason: string, mentioning: readonly string[]): CoreEvent | undefined; seen: string }> {
  const events = (await client.list(Events, { namespace })).items.filter((e) => e.involvedObject.name === objectName);
  return {
    find: (reason, mentioning) =>
      events.find(
        (e) => e.type === 'Warning' && e.reason === reason && mentioning.every((m) => (e.message ?? '').includes(m)),
      ),
    seen: events.map((e) => `${e.type ?? ''} ${e.reason ?? ''}: ${e.message ?? ''}`).join(' | '),
  };
}
