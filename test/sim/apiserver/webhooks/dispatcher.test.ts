// The dispatcher's own rules, on configurations placed straight in the store: a configuration that the
// v1 API would now refuse (sideEffects Some or Unknown, kept from the retired v1beta1 API) still exists
// in clusters, and kube-apiserver refuses a dryRun request that would reach it rather than call it.
import { expect } from 'chai';
import { StatusError } from '../../../../sim/apiserver/errors.js';
import { TypeRegistry } from '../../../../sim/apiserver/registry.js';
import { Store } from '../../../../sim/apiserver/storage/store.js';
import type { AdmissionAttributes } from '../../../../sim/apiserver/webhooks/attributes.js';
import { WebhookDispatcher } from '../../../../sim/apiserver/webhooks/dispatcher.js';
import { allow, startWebhookServer, type WebhookServer } from './webhook-server.js';

describe('envtest webhook dispatcher', () => {
  let server: WebhookServer;
  before(async () => {
    server = await startWebhookServer();
  });
  after(async () => server?.close());

  function storeWith(sideEffects: string): Store {
    const store = new Store(100);
    store.put('admissionregistration.k8s.io/validatingwebhookconfigurations', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'legacy', uid: 'u1' },
      webhooks: [
        {
          name: 'legacy.test.io',
          clientConfig: { url: `${server.url}/v`, caBundle: server.caBundle },
          rules: [
            { apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'], scope: '*' },
          ],
          failurePolicy: 'Ignore',
          matchPolicy: 'Equivalent',
          sideEffects,
          timeoutSeconds: 5,
          admissionReviewVersions: ['v1'],
        },
      ],
    } as never);
    return store;
  }

  function attrs(dryRun: boolean): AdmissionAttributes {
    const type = new TypeRegistry().byTypeKey('/configmaps');
    if (!type) throw new Error('configmaps not served');
    return {
      operation: 'CREATE',
      type,
      version: 'v1',
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      subresource: '',
      namespace: '',
      name: 'cm',
      object: { metadata: { name: 'cm' } },
      dryRun,
      options: {},
    };
  }

  for (const sideEffects of ['Some', 'Unknown']) {
    it(`refuses a dryRun request reaching a webhook with sideEffects ${sideEffects}, whatever its failurePolicy, without calling it`, async () => {
      server.reviews.length = 0;
      const dispatcher = new WebhookDispatcher(storeWith(sideEffects));
      let error: unknown;
      try {
        await dispatcher.validate(attrs(true), []);
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(StatusError);
      expect((error as StatusError).code).to.equal(400);
      expect((error as StatusError).message).to.equal('admission webhook "legacy.test.io" does not support dry run');
      expect(server.reviews).to.have.length(0);
      // The same webhook is called for a real write.
      server.handle = (request) => allow(request);
      await dispatcher.validate(attrs(false), []);
      expect(server.reviews).to.have.length(1);
    });
  }

  it('is inactive without configurations, so writes take no detour', () => {
    expect(new WebhookDispatcher(new Store(100)).active()).to.equal(false);
    expect(new WebhookDispatcher(storeWith('None')).active()).to.equal(true);
  });
});
