// One stored Event, two APIs: core/v1 events and events.k8s.io/v1 events are views of the same objects,
// converted field by field as kube-apiserver converts them, with the same resourceVersion, and each
// with the field selectors kube supports for it.
import { expect } from 'chai';
import * as k8s from '@kubernetes/client-node';
import { coreFromEventsV1, eventsV1FromCore } from '../../../sim/apiserver/event-conversion.js';
import { createNamespace, failure, merge, raw, startEnv, type Env, type Json } from './helpers.js';

const coreEvent = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'm1.abc', namespace: 'ev' },
  involvedObject: {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    name: 'm1',
    namespace: 'ev',
    uid: 'u-1',
  },
  reason: 'Created',
  message: 'Created Machine m1',
  source: { component: 'machine-controller', host: 'h1' },
  firstTimestamp: '2026-01-01T00:00:00Z',
  lastTimestamp: '2026-01-01T00:01:00Z',
  count: 2,
  type: 'Normal',
  eventTime: '2026-01-01T00:00:00.000000Z',
  series: { count: 2, lastObservedTime: '2026-01-01T00:01:00.000000Z' },
  action: 'Create',
  related: { kind: 'Node', name: 'n1' },
  reportingComponent: 'machine-controller',
  reportingInstance: 'machine-controller-0',
};

/** The test Event with some fields replaced, typed for the client (which would parse the timestamps itself). */
function coreWith(over: Record<string, unknown>): k8s.CoreV1Event {
  return { ...coreEvent, ...over } as unknown as k8s.CoreV1Event;
}

describe('envtest: events.k8s.io/v1 is a view of the core Events', () => {
  describe('conversion', () => {
    it('renames the fields kube renames and keeps the shared ones', () => {
      const v = eventsV1FromCore(coreEvent) as Json;
      expect(v).to.deep.equal({
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: coreEvent.metadata,
        regarding: coreEvent.involvedObject,
        deprecatedSource: coreEvent.source,
        note: coreEvent.message,
        deprecatedFirstTimestamp: coreEvent.firstTimestamp,
        deprecatedLastTimestamp: coreEvent.lastTimestamp,
        deprecatedCount: 2,
        reportingController: 'machine-controller',
        reason: 'Created',
        type: 'Normal',
        eventTime: coreEvent.eventTime,
        series: coreEvent.series,
        action: 'Create',
        related: coreEvent.related,
        reportingInstance: 'machine-controller-0',
      });
      expect(coreFromEventsV1(v)).to.deep.equal(coreEvent);
    });

    it("always serialises the object references and sources, as kube's struct fields are", () => {
      const v = eventsV1FromCore({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'x' } }) as Json;
      expect(v.regarding).to.deep.equal({});
      expect(v.deprecatedSource).to.deep.equal({});
      const c = coreFromEventsV1({ apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'x' } }) as Json;
      expect(c.involvedObject).to.deep.equal({});
      expect(c.source).to.deep.equal({});
    });
  });

  describe('served', () => {
    let env: Env;
    let events: k8s.EventsV1Api;
    const ns = 'ev';

    before(async () => {
      env = await startEnv();
      events = env.kc.makeApiClient(k8s.EventsV1Api);
      await createNamespace(env, ns);
    });
    after(async () => env.cp.stop());

    it('shows an Event created through core/v1 through events.k8s.io/v1, same object, same resourceVersion', async () => {
      const created = await env.core.createNamespacedEvent({
        namespace: ns,
        body: coreWith({ metadata: { name: 'from-core' } }),
      });
      const seen = await events.readNamespacedEvent({ namespace: ns, name: 'from-core' });
      expect(seen.apiVersion).to.equal('events.k8s.io/v1');
      expect(seen.metadata?.resourceVersion).to.equal(created.metadata?.resourceVersion);
      expect(seen.metadata?.uid).to.equal(created.metadata?.uid);
      expect(seen.note).to.equal('Created Machine m1');
      expect(seen.regarding?.name).to.equal('m1');
      expect(seen.reportingController).to.equal('machine-controller');
      expect(seen.deprecatedCount).to.equal(2);
      const listed = await events.listEventForAllNamespaces();
      expect(listed.items.map((e) => e.metadata?.name)).to.include('from-core');
    });

    it('stores an Event created through events.k8s.io/v1 as a core Event', async () => {
      const created = await events.createNamespacedEvent({
        namespace: ns,
        body: {
          metadata: { name: 'from-events' },
          eventTime: new Date('2026-01-01T00:00:00Z'),
          regarding: { kind: 'Machine', name: 'm2', namespace: ns },
          note: 'hello',
          reason: 'Scheduled',
          type: 'Warning',
          action: 'Schedule',
          reportingController: 'mapi/ctl',
          reportingInstance: 'ctl-0',
        },
      });
      expect(created.apiVersion).to.equal('events.k8s.io/v1');
      const core = await env.core.readNamespacedEvent({ namespace: ns, name: 'from-events' });
      expect(core.metadata?.resourceVersion).to.equal(created.metadata?.resourceVersion);
      expect(core.message).to.equal('hello');
      expect(core.involvedObject.name).to.equal('m2');
      expect(core.reportingComponent).to.equal('mapi/ctl');
      expect(core.type).to.equal('Warning');
    });

    it('updates, patches and deletes the same object through either API', async () => {
      await env.core.createNamespacedEvent({ namespace: ns, body: coreWith({ metadata: { name: 'shared' } }) });
      const viaEvents = await events.readNamespacedEvent({ namespace: ns, name: 'shared' });
      const lastObservedTime = '2026-01-01T00:02:00.000000Z' as unknown as Date;
      const replaced = await events.replaceNamespacedEvent({
        namespace: ns,
        name: 'shared',
        body: { ...viaEvents, series: { count: 3, lastObservedTime } },
      });
      expect((await env.core.readNamespacedEvent({ namespace: ns, name: 'shared' })).series?.count).to.equal(3);
      const patched = await events.patchNamespacedEvent(
        { namespace: ns, name: 'shared', body: { metadata: { labels: { seen: 'twice' } } } },
        merge,
      );
      expect(Number(patched.metadata?.resourceVersion)).to.be.greaterThan(Number(replaced.metadata?.resourceVersion));
      const core = await env.core.readNamespacedEvent({ namespace: ns, name: 'shared' });
      expect(core.metadata?.labels).to.deep.equal({ seen: 'twice' });
      const corePatched = await env.core.patchNamespacedEvent(
        { namespace: ns, name: 'shared', body: { message: 'core may rewrite it' } },
        merge,
      );
      expect((await events.readNamespacedEvent({ namespace: ns, name: 'shared' })).note).to.equal(
        'core may rewrite it',
      );
      expect(corePatched.metadata?.resourceVersion).to.not.equal(patched.metadata?.resourceVersion);
      await events.deleteNamespacedEvent({ namespace: ns, name: 'shared' });
      const gone = await failure(env.core.readNamespacedEvent({ namespace: ns, name: 'shared' }));
      expect(gone.code).to.equal(404);
    });

    it("holds events.k8s.io/v1 writes to that API's strict rules, core writes to the legacy ones (kube's messages, core field names)", async () => {
      const bad = await failure(
        events.createNamespacedEvent({
          namespace: ns,
          body: {
            metadata: { name: 'strict' },
            regarding: { kind: 'Machine', name: 'm', namespace: ns },
            reason: 'R',
            type: 'Odd',
            deprecatedCount: 2,
          } as unknown as k8s.EventsV1Event,
        }),
      );
      expect(bad.code).to.equal(422);
      expect(bad.body.message).to.equal(
        'Event.events.k8s.io "strict" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: Odd, count: Invalid value: "": needs to be unset]',
      );
      const timed = await failure(
        env.core.createNamespacedEvent({
          namespace: ns,
          body: coreWith({ metadata: { name: 'timed' }, reportingComponent: undefined, action: undefined }),
        }),
      );
      expect(timed.body.message).to.equal(
        'Event "timed" is invalid: [reportingController: Required value, reportingController: Invalid value: "": name part must be non-empty, action: Required value]',
      );
      await env.core.createNamespacedEvent({ namespace: ns, body: coreWith({ metadata: { name: 'immutable' } }) });
      const current = await events.readNamespacedEvent({ namespace: ns, name: 'immutable' });
      const changed = await failure(
        events.replaceNamespacedEvent({ namespace: ns, name: 'immutable', body: { ...current, note: 'rewritten' } }),
      );
      expect(changed.code).to.equal(422);
      expect(changed.body.details.causes).to.deep.equal([
        { reason: 'FieldValueInvalid', message: 'Invalid value: "rewritten": field is immutable', field: 'message' },
      ]);
    });

    it('names the events.k8s.io resource in its errors', async () => {
      const f = await failure(events.readNamespacedEvent({ namespace: ns, name: 'nope' }));
      expect(f.code).to.equal(404);
      expect(f.body.message).to.equal('events.events.k8s.io "nope" not found');
    });

    it('selects by the events.k8s.io field labels, mapped to the core fields, and rejects the core-only ones', async () => {
      await env.core.createNamespacedEvent({
        namespace: ns,
        body: coreWith({
          metadata: { name: 'sel-a' },
          involvedObject: { kind: 'Node', name: 'n-a', namespace: ns },
          reportingComponent: 'rc-a',
        }),
      });
      await env.core.createNamespacedEvent({
        namespace: ns,
        body: coreWith({ metadata: { name: 'sel-b' }, involvedObject: { kind: 'Node', name: 'n-b', namespace: ns } }),
      });
      const byName = await events.listNamespacedEvent({
        namespace: ns,
        fieldSelector: 'regarding.kind=Node,regarding.name=n-a',
      });
      expect(byName.items.map((e) => e.metadata?.name)).to.deep.equal(['sel-a']);
      const byController = await events.listNamespacedEvent({
        namespace: ns,
        fieldSelector: 'reportingController=rc-a',
      });
      expect(byController.items.map((e) => e.metadata?.name)).to.deep.equal(['sel-a']);
      const bySource = await events.listNamespacedEvent({
        namespace: ns,
        fieldSelector: 'source=machine-controller,regarding.kind=Node',
      });
      expect(bySource.items.map((e) => e.metadata?.name)).to.deep.equal(['sel-a', 'sel-b']);
      const coreOnly = await failure(
        events.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=n-a' }),
      );
      expect(coreOnly.code).to.equal(400);
      expect(coreOnly.body.message).to.equal('field label not supported: involvedObject.name');
      const viewOnly = await failure(
        env.core.listNamespacedEvent({ namespace: ns, fieldSelector: 'regarding.name=n-a' }),
      );
      expect(viewOnly.code).to.equal(400);
    });

    it('watches core writes through events.k8s.io/v1, converted', async () => {
      const list = await events.listNamespacedEvent({ namespace: ns });
      const res = raw(
        env.cp,
        'GET',
        `/apis/events.k8s.io/v1/namespaces/${ns}/events?watch=true&timeoutSeconds=1&resourceVersion=${list.metadata?.resourceVersion ?? ''}`,
      );
      await new Promise((r) => setTimeout(r, 100));
      const created = await env.core.createNamespacedEvent({
        namespace: ns,
        body: coreWith({ metadata: { name: 'watched' } }),
      });
      const lines = (await res).text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const added = lines.find((l) => l.object?.metadata?.name === 'watched');
      expect(added?.type).to.equal('ADDED');
      expect(added?.object.apiVersion).to.equal('events.k8s.io/v1');
      expect(added?.object.note).to.equal('Created Machine m1');
      expect(added?.object.metadata.resourceVersion).to.equal(created.metadata?.resourceVersion);
    });

    it('prints the same table through both APIs (kube prints the one object)', async () => {
      const headers = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
      const core = (await raw(env.cp, 'GET', `/api/v1/namespaces/${ns}/events/from-core`, { headers })).json();
      const view = (
        await raw(env.cp, 'GET', `/apis/events.k8s.io/v1/namespaces/${ns}/events/from-core`, { headers })
      ).json();
      expect(view.rows[0].cells).to.deep.equal(core.rows[0].cells);
      expect(view.rows[0].cells).to.include('Created Machine m1');
    });
  });
});
