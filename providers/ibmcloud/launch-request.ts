// The POST /instances prototype for a Machine: its spec's names resolved to ids (cached per spec), and its user
// data. A launch the VPC refuses because an id is unknown or the request invalid may come from stale resolved
// ids, so they are looked up again next time.
import { failureStep, type KubeClient } from '../../lib/index.js';
import { classifyVpcError } from './errors.js';
import { buildInstancePrototype } from './instances.js';
import { userDataFor, type MachineScope } from './machine-scope.js';
import type { NameResolver } from './name-resolver.js';
import type { InstancePrototype } from './vpc-types.js';

export class LaunchRequests {
  constructor(
    private readonly resolver: NameResolver,
    /** Reads the user-data Secret. */
    private readonly client: KubeClient,
  ) {}

  async prototypeFor(scope: MachineScope, signal: AbortSignal): Promise<InstancePrototype> {
    const { machine, spec } = scope;
    // The user data first: when it is over the VPC's cap the Machine fails before any look-up is spent on it.
    const userData = await failureStep('failed to get user data', () =>
      userDataFor(machine, spec, this.client, signal),
    );
    const ids = await failureStep('failed to resolve the providerSpec names', () =>
      this.resolver.resolve(scope.clients, spec, signal),
    );
    return buildInstancePrototype(scope.instanceName, spec, ids, userData);
  }

  /** The VPC refused the launch: an id it no longer knows, or a request it refuses, may be a stale resolution. */
  refused(scope: MachineScope, err: unknown): void {
    const cls = classifyVpcError(err);
    if (cls === 'notFound' || cls === 'invalid') this.resolver.invalidate(scope.clients, scope.spec);
  }
}
