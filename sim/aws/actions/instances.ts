// DescribeInstances, TerminateInstances, StopInstances, StartInstances.
import { invalidParameterCombination, missingParameter, Ec2ApiError } from '../api-error.js';
import { VIEW_BY_ID, VIEW_SEARCH, type StateChange } from '../ec2-state.js';
import { filterPredicate, readFilters, type FilterFields } from '../filters.js';
import { reservationSetXml, stateXml } from '../instance-xml.js';
import { INSTANCE_STATE_CODES, type Ec2Instance } from '../model.js';
import { decodeToken, encodeToken, readMaxResults } from '../pagination.js';
import { checkDryRun } from '../validation.js';
import { el, itemList, opt, type XmlChild } from '../xml.js';
import type { ActionContext } from './action-context.js';
import { assignPublicAddress } from './run-instances.js';

export const INSTANCE_FILTERS: FilterFields<Ec2Instance> = {
  'instance-id': (i) => i.instanceId,
  'instance-state-name': (i) => i.state,
  'instance-state-code': (i) => INSTANCE_STATE_CODES[i.state],
  'instance-type': (i) => i.instanceType,
  'image-id': (i) => i.imageId,
  'vpc-id': (i) => i.vpcId,
  'subnet-id': (i) => i.subnetId,
  'availability-zone': (i) => i.availabilityZone,
  'private-dns-name': (i) => i.privateDnsName,
  'private-ip-address': (i) => i.privateIpAddress,
  'ip-address': (i) => i.publicIpAddress,
  'dns-name': (i) => i.publicDnsName,
  'instance-lifecycle': (i) => i.lifecycle,
  'spot-instance-request-id': (i) => i.spotInstanceRequestId,
  'client-token': (i) => i.clientToken,
  'key-name': (i) => i.keyName,
  'reservation-id': (i) => i.reservationId,
  'owner-id': (i) => i.ownerId,
  architecture: (i) => i.architecture,
  tenancy: (i) => i.tenancy,
  'host-id': (i) => i.hostId,
  'placement-group-name': (i) => i.placementGroupName,
  'iam-instance-profile.arn': (i) => i.iamInstanceProfile?.arn,
  'instance.group-id': (i) => i.securityGroups.map((g) => g.groupId),
  'instance.group-name': (i) => i.securityGroups.map((g) => g.groupName),
  'network-interface.addresses.private-ip-address': (i) => i.privateIpAddress,
  'network-interface.ipv6-addresses.ipv6-address': (i) => i.ipv6Addresses,
  'root-device-name': (i) => i.rootDeviceName,
  'launch-time': (i) => new Date(i.launchTime).toISOString(),
  'metadata-options.http-tokens': (i) => i.metadataOptions.httpTokens,
  'capacity-reservation-id': (i) => i.capacityReservationId,
};

const DEFAULT_PAGE = 1000;

export function describeInstances({ params, state }: ActionContext): XmlChild {
  const ids = params.list('InstanceId');
  const maxResultsRaw = params.int('MaxResults');
  if (ids.length > 0 && maxResultsRaw !== undefined) {
    throw invalidParameterCombination('The parameter instancesSet cannot be used with the parameter maxResults');
  }
  const pageSize = readMaxResults(maxResultsRaw, 5, 1000, DEFAULT_PAGE);
  const after = decodeToken('instances', params.get('NextToken'));
  const predicate = filterPredicate(readFilters(params), INSTANCE_FILTERS, (i) => i.tags);
  checkDryRun(params);

  const candidates =
    ids.length > 0
      ? state.requireInstances(ids, VIEW_BY_ID)
      : state.world.instances.filter((i) => state.knobs.isVisible(i.instanceId, VIEW_SEARCH));
  const matched = candidates
    .filter(predicate)
    .filter((i) => after === undefined || i.seq > after)
    .sort((a, b) => a.seq - b.seq);
  const page = matched.slice(0, pageSize);
  const last = page[page.length - 1];
  const nextToken = matched.length > page.length && last ? encodeToken('instances', last.seq) : undefined;
  return [reservationSetXml(page, state.world.accountId), opt('nextToken', nextToken)];
}

const STATUS_OK_AFTER_BOOT = 'ok';

/** DescribeInstanceStatus: running instances only unless IncludeAllInstances; reachability is "ok" once running. */
export function describeInstanceStatus({ params, state }: ActionContext): XmlChild {
  const ids = params.list('InstanceId');
  const all = params.bool('IncludeAllInstances') ?? false;
  const pageSize = readMaxResults(params.int('MaxResults'), 5, 1000, 1000);
  const after = decodeToken('instance-status', params.get('NextToken'));
  const predicate = filterPredicate(readFilters(params), {
    'instance-state-name': (i: Ec2Instance) => i.state,
    'instance-state-code': (i: Ec2Instance) => INSTANCE_STATE_CODES[i.state],
    'availability-zone': (i: Ec2Instance) => i.availabilityZone,
    'instance-status.status': (i: Ec2Instance) => (i.state === 'running' ? STATUS_OK_AFTER_BOOT : 'not-applicable'),
    'system-status.status': (i: Ec2Instance) => (i.state === 'running' ? STATUS_OK_AFTER_BOOT : 'not-applicable'),
  });
  checkDryRun(params);
  const candidates =
    ids.length > 0
      ? state.requireInstances(ids, VIEW_BY_ID)
      : state.world.instances.filter((i) => state.knobs.isVisible(i.instanceId, VIEW_SEARCH));
  const matched = candidates
    .filter((i) => all || i.state === 'running')
    .filter(predicate)
    .filter((i) => after === undefined || i.seq > after)
    .sort((a, b) => a.seq - b.seq);
  const page = matched.slice(0, pageSize);
  const last = page[page.length - 1];
  const status = (i: Ec2Instance) => {
    const s = i.state === 'running' ? STATUS_OK_AFTER_BOOT : 'not-applicable';
    return [
      el('status', s),
      itemList('details', s === 'ok' ? [s] : [], () => [el('name', 'reachability'), el('status', 'passed')]),
    ];
  };
  return [
    itemList('instanceStatusSet', page, (i) => [
      el('instanceId', i.instanceId),
      el('availabilityZone', i.availabilityZone),
      stateXml('instanceState', i.state),
      el('systemStatus', status(i)),
      el('instanceStatus', status(i)),
    ]),
    opt('nextToken', matched.length > page.length && last ? encodeToken('instance-status', last.seq) : undefined),
  ];
}

function changesXml(changes: readonly StateChange[]): XmlChild {
  return itemList('instancesSet', changes, (c) => [
    el('instanceId', c.instance.instanceId),
    stateXml('currentState', c.current),
    stateXml('previousState', c.previous),
  ]);
}

function requireIds(ctx: ActionContext): Ec2Instance[] {
  const ids = ctx.params.list('InstanceId');
  if (ids.length === 0) throw missingParameter('InstanceId');
  return ctx.state.requireInstances(ids, VIEW_BY_ID);
}

export function terminateInstances(ctx: ActionContext): XmlChild {
  const instances = requireIds(ctx);
  const protectedOne = instances.find((i) => i.terminationProtected && i.state !== 'terminated');
  if (protectedOne) {
    throw new Ec2ApiError(
      400,
      'OperationNotPermitted',
      `The instance '${protectedOne.instanceId}' may not be terminated. Modify its 'disableApiTermination' instance attribute and try again.`,
    );
  }
  checkDryRun(ctx.params);
  const changes = instances.map((i) =>
    ctx.state.terminate(i, {
      code: 'Client.UserInitiatedShutdown',
      message: 'Client.UserInitiatedShutdown: User initiated shutdown',
    }),
  );
  ctx.state.changed();
  return changesXml(changes);
}

export function stopInstances(ctx: ActionContext): XmlChild {
  const instances = requireIds(ctx);
  ctx.params.bool('Force');
  const hibernate = ctx.params.bool('Hibernate') ?? false;
  for (const i of instances) {
    if (i.lifecycle === 'spot' && i.spotInterruptionBehavior === 'terminate') {
      throw new Ec2ApiError(
        400,
        'UnsupportedOperation',
        `You can't stop the Spot Instance '${i.instanceId}' because it is associated with a one-time Spot Instance request. You can only stop Spot Instances associated with persistent Spot Instance requests.`,
      );
    }
    if (i.state === 'pending' || i.state === 'shutting-down' || i.state === 'terminated') {
      throw new Ec2ApiError(
        400,
        'IncorrectInstanceState',
        `This instance '${i.instanceId}' is not in a state from which it can be stopped.`,
      );
    }
  }
  if (hibernate)
    throw new Ec2ApiError(
      400,
      'UnsupportedHibernationConfiguration',
      'Hibernation is not configured for the instance(s) in this request.',
    );
  checkDryRun(ctx.params);
  const changes = instances.map((i) =>
    ctx.state.stop(i, {
      code: 'Client.UserInitiatedShutdown',
      message: 'Client.UserInitiatedShutdown: User initiated shutdown',
    }),
  );
  ctx.state.changed();
  return changesXml(changes);
}

export function startInstances(ctx: ActionContext): XmlChild {
  const instances = requireIds(ctx);
  for (const i of instances) {
    if (i.state === 'stopping' || i.state === 'shutting-down' || i.state === 'terminated') {
      throw new Ec2ApiError(
        400,
        'IncorrectInstanceState',
        `The instance '${i.instanceId}' is not in a state from which it can be started.`,
      );
    }
  }
  checkDryRun(ctx.params);
  const changes = instances.map((i) => ctx.state.start(i, (x) => assignPublicAddress(ctx.state, x)));
  ctx.state.changed();
  return changesXml(changes);
}
