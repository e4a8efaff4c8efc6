import { expect } from 'chai';
import { reportActuatorFailures } from '../../../lib/machine/actuator-reporting.js';
import {
  credentialsSecretOf,
  markRefusedCredentials,
  refusedCredentialsSecret,
  reportRefusedCredentials,
} from '../../../lib/machine/refused-credentials.js';
import { ListEvents, machine, quietLog } from './fixtures.js';

const withSecret = (name: string) =>
  machine(name, { spec: { providerSpec: { value: { credentialsSecret: { name: 'cloud-credentials' } } } } });

describe('credentials the cloud refused', () => {
  it('names the credentials Secret of the providerSpec in the Machine’s namespace, and none when it names none', () => {
    const m = withSecret('m1');
    expect(credentialsSecretOf(m)).to.equal(`${m.metadata.namespace}/cloud-credentials`);
    expect(credentialsSecretOf(machine('m2'))).to.equal(undefined);
  });

  it('reports a marked refusal as a Failed<verb> Warning naming the Secret, in the provider’s words', () => {
    const events = new ListEvents();
    const m = withSecret('m1');
    const err = new Error('AWS was not able to validate the provided access credentials');
    reportRefusedCredentials(m, err, 'Update', events);
    expect(events.list, 'an error nobody marked is not a refusal').to.deep.equal([]);
    markRefusedCredentials(
      err,
      'ns/cloud-credentials',
      'AuthFailure: AWS was not able to validate the provided access credentials',
    );
    expect(refusedCredentialsSecret(err)).to.equal('ns/cloud-credentials');
    reportRefusedCredentials(m, err, 'Update', events);
    expect(events.list).to.have.length(1);
    expect(events.list[0]).to.include({ type: 'Warning', reason: 'FailedUpdate' });
    expect(events.list[0]!.message).to.equal(
      'm1: AuthFailure: AWS was not able to validate the provided access credentials; the cloud refused the credentials in Secret ns/cloud-credentials; fix the Secret and the next reconcile uses them',
    );
  });

  it('adds the Secret to the actuator’s own Failed<Op> event', async () => {
    const events = new ListEvents();
    const err = new Error('Provided API key could not be found.');
    markRefusedCredentials(err, 'ns/cloud-credentials', 'BXNIM0415E: Provided API key could not be found.');
    await reportActuatorFailures(
      'create',
      withSecret('m1'),
      { signal: new AbortController().signal, log: quietLog, events },
      { reason: 'failed to create machine' },
      () => Promise.reject(err),
    ).catch(() => undefined);
    expect(events.list.map((e) => e.message)).to.deep.equal([
      'm1: reconciler failed to Create machine: Provided API key could not be found.; the cloud refused the credentials in Secret ns/cloud-credentials; fix the Secret and the next reconcile uses them',
    ]);
  });
});
