// The AWS actuator's record step: what update() writes onto a Machine from its instance (providerID, region and
// zone labels, the spot label on the Node's metadata, addresses with the VPC's DHCP domain names, the instance
// state), and what it keeps in line at EC2 (missing tags, load balancer registrations).
import type { Instance } from '@aws-sdk/client-ec2';
import {
  MachineInstanceStateAnnotation,
  MachineInterruptibleInstanceLabel,
  TtlCache,
  messageOf,
  setFailureReason,
  type ActuatorContext,
  type Clock,
} from '../../lib/index.js';
import { describeEc2Error } from './errors.js';
import {
  addressesOf,
  buildTags,
  dhcpDomainsOf,
  instanceState,
  isGone,
  machineLabelsFor,
  missingTags,
  providerIdOf,
} from './instances.js';
import { registerWithLoadBalancers } from './load-balancers.js';
import type { MachineScope } from './machine-scope.js';
import type { TagSpecification } from './provider-spec.js';

export interface InstanceRecorderOptions {
  clock: Clock;
  /** How long VPC DHCP domain names are cached (default 1 h). */
  dhcpCacheTtlMs?: number;
  infrastructureTags?: TagSpecification[];
  /** Writes the instance id and state into the provider status. */
  record(scope: MachineScope, instance: Instance): void;
}

/** Runs `join` unless it already succeeded for this Machine under `what`. */
export type EnsureOnce = (what: string, join: () => Promise<void>) => Promise<void>;

export class InstanceRecorder {
  private readonly dhcpDomains: TtlCache<string[]>;

  constructor(private readonly o: InstanceRecorderOptions) {
    this.dhcpDomains = new TtlCache(o.clock, o.dhcpCacheTtlMs ?? 3_600_000);
  }

  async apply(scope: MachineScope, instance: Instance, ctx: ActuatorContext, ensureOnce: EnsureOnce): Promise<void> {
    const { machine } = scope;
    let domains: string[] = [];
    try {
      domains = await this.dhcpDomainsFor(scope, instance.VpcId, ctx.signal);
    } catch (err) {
      ctx.log.info('could not read the VPC DHCP options; omitting DHCP-domain DNS names', {
        error: describeEc2Error(err),
      });
    }
    machine.spec = { ...machine.spec, providerID: providerIdOf(instance) };
    machine.metadata.labels = { ...machine.metadata.labels, ...machineLabelsFor(instance, scope.region) };
    if (instance.InstanceLifecycle === 'spot') {
      const nodeMeta = machine.spec.metadata ?? {};
      machine.spec.metadata = { ...nodeMeta, labels: { ...nodeMeta.labels, [MachineInterruptibleInstanceLabel]: '' } };
    }
    machine.metadata.annotations = {
      ...machine.metadata.annotations,
      [MachineInstanceStateAnnotation]: instanceState(instance),
    };
    machine.status = { ...machine.status, addresses: addressesOf(instance, domains) };
    this.o.record(scope, instance);

    const errors: string[] = [];
    if (!isGone(instance)) {
      const tags = missingTags(
        buildTags(machine, scope.spec, scope.clusterId, this.o.infrastructureTags),
        instance.Tags,
      );
      if (tags.length > 0) {
        try {
          await scope.clients.ec2.createTags(instance.InstanceId ?? '', tags, { signal: ctx.signal });
          instance.Tags = [...(instance.Tags ?? []).filter((t) => !tags.some((n) => n.Key === t.Key)), ...tags];
        } catch (err) {
          errors.push(`failed to tag instance: ${describeEc2Error(err)}`);
        }
      }
    }
    const lbs = scope.spec.loadBalancers ?? [];
    if (lbs.length > 0 && instanceState(instance) === 'running') {
      try {
        await ensureOnce(`lb|${instance.InstanceId ?? ''}|${JSON.stringify(lbs)}`, () =>
          registerWithLoadBalancers(scope.clients.ec2, instance, lbs, ctx.signal),
        );
      } catch (err) {
        errors.push(messageOf(err));
      }
    }
    if (errors.length > 0) {
      const err = new Error(errors.join('; '));
      setFailureReason(err, 'failed to update load balancers');
      throw err;
    }
  }

  private async dhcpDomainsFor(scope: MachineScope, vpcId: string | undefined, signal: AbortSignal): Promise<string[]> {
    if (!vpcId) return [];
    const key = `${scope.clients.region}/${vpcId}`;
    const cached = this.dhcpDomains.get(key);
    if (cached) return cached;
    const { ec2 } = scope.clients;
    const vpc = (await ec2.describeVpcs([vpcId], { signal }))[0];
    let domains: string[] = [];
    if (vpc?.DhcpOptionsId) {
      const options = (await ec2.describeDhcpOptions([vpc.DhcpOptionsId], { signal }))[0];
      domains = dhcpDomainsOf(options?.DhcpConfigurations);
    }
    this.dhcpDomains.set(key, domains);
    return domains;
  }
}
