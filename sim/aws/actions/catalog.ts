// DescribeImages and DescribeInstanceTypes.
import { Ec2ApiError, invalidParameterCombination } from '../api-error.js';
import type { Image, InstanceTypeSpec } from '../model.js';
import { checkIdFormat } from '../validation.js';
import { el, itemList, tagSet, type XmlChild } from '../xml.js';
import type { ActionContext } from './action-context.js';
import { describeListing, readPageSize } from './describe-listing.js';

export function describeImages(ctx: ActionContext): XmlChild {
  const { params, state } = ctx;
  const w = state.world;
  const ids = params.list('ImageId');
  for (const id of ids) checkIdFormat(id, 'ami', 'InvalidAMIID.Malformed');
  const maxResults = params.int('MaxResults');
  if (ids.length > 0 && maxResults !== undefined)
    throw invalidParameterCombination('The parameter ImageIds cannot be used with the parameter MaxResults');
  // DescribeImages checks MaxResults before the filters, unlike the other Describe* actions.
  readPageSize(params);
  const owners = params.list('Owner');
  const ownerOk = (i: Image) =>
    owners.length === 0 || owners.some((o) => (o === 'self' ? i.ownerId === w.accountId : o === i.ownerId));
  const visible = (i: Image) => i.isPublic || i.ownerId === w.accountId;
  return describeListing<Image>(ctx, {
    all: w.images,
    filters: {
      'image-id': (i) => i.imageId,
      name: (i) => i.name,
      description: (i) => i.description,
      architecture: (i) => i.architecture,
      state: (i) => i.state,
      'owner-id': (i) => i.ownerId,
      'root-device-name': (i) => i.rootDeviceName,
      'root-device-type': () => 'ebs',
      'is-public': (i) => i.isPublic,
      'image-type': () => 'machine',
      'virtualization-type': () => 'hvm',
      'block-device-mapping.snapshot-id': (i) => i.snapshotId,
      'creation-date': (i) => i.creationDate,
    },
    tagsOf: (i) => i.tags,
    byId: {
      param: 'ImageId',
      idOf: (i) => i.imageId,
      notFound: (missing) =>
        new Ec2ApiError(400, 'InvalidAMIID.NotFound', `The image id '[${missing.join(', ')}]' does not exist`),
    },
    narrow: (selected) => selected.filter((i) => visible(i) && ownerOk(i)),
    tokenKind: 'images',
    setName: 'imagesSet',
    render: (i) => [
      el('imageId', i.imageId),
      el('imageLocation', `${i.ownerId}/${i.name}`),
      el('imageState', i.state),
      el('imageOwnerId', i.ownerId),
      el('creationDate', i.creationDate),
      el('isPublic', i.isPublic),
      el('architecture', i.architecture),
      el('imageType', 'machine'),
      el('platformDetails', 'Linux/UNIX'),
      el('usageOperation', 'RunInstances'),
      el('name', i.name),
      el('description', i.description),
      el('rootDeviceType', 'ebs'),
      el('rootDeviceName', i.rootDeviceName),
      itemList('blockDeviceMapping', [i], () => [
        el('deviceName', i.rootDeviceName),
        el(
          'ebs',
          el('snapshotId', i.snapshotId),
          el('volumeSize', i.rootVolumeSizeGiB),
          el('deleteOnTermination', true),
          el('volumeType', 'gp3'),
          el('encrypted', false),
        ),
      ]),
      el('virtualizationType', 'hvm'),
      el('hypervisor', 'xen'),
      el('enaSupport', true),
      tagSet(i.tags),
    ],
  });
}

export function describeInstanceTypes(ctx: ActionContext): XmlChild {
  const { params, state } = ctx;
  const names = params.list('InstanceType');
  return describeListing<InstanceTypeSpec>(ctx, {
    all: state.world.instanceTypes,
    filters: {
      'instance-type': (t) => t.instanceType,
      'current-generation': (t) => t.currentGeneration,
      'processor-info.supported-architecture': (t) => t.architectures,
      'vcpu-info.default-vcpus': (t) => t.vCpus,
      'memory-info.size-in-mib': (t) => t.memoryMiB,
      'gpu-info.total-gpu-memory-in-mib': (t) =>
        t.gpus ? t.gpus.reduce((s, g) => s + g.count * g.memoryMiB, 0) : undefined,
      'bare-metal': () => false,
      hypervisor: () => 'nitro',
    },
    // Named types (at most 100) come back in one page unless the caller pages explicitly.
    maxResults: { min: 5, max: 100, fallback: names.length > 0 ? 100 : state.instanceTypesPageSize },
    byId: {
      param: 'InstanceType',
      idOf: (t) => t.instanceType,
      notFound: (missing) =>
        new Ec2ApiError(
          400,
          'InvalidInstanceType',
          `The following supplied instance types do not exist: [${missing.join(', ')}]`,
        ),
    },
    tokenKind: 'instance-types',
    setName: 'instanceTypeSet',
    render: (t) => [
      el('instanceType', t.instanceType),
      el('currentGeneration', t.currentGeneration),
      el('freeTierEligible', false),
      itemList('supportedUsageClasses', ['on-demand', 'spot'], (u) => u),
      itemList('supportedRootDeviceTypes', ['ebs'], (u) => u),
      itemList('supportedVirtualizationTypes', ['hvm'], (u) => u),
      el('bareMetal', false),
      el('hypervisor', 'nitro'),
      el(
        'processorInfo',
        itemList('supportedArchitectures', t.architectures, (a) => a),
        el('sustainedClockSpeedInGhz', 3.1),
      ),
      el(
        'vCpuInfo',
        el('defaultVCpus', t.vCpus),
        el('defaultCores', Math.max(1, t.vCpus / 2)),
        el('defaultThreadsPerCore', t.vCpus > 1 ? 2 : 1),
      ),
      el('memoryInfo', el('sizeInMiB', t.memoryMiB)),
      el('instanceStorageSupported', false),
      el(
        'ebsInfo',
        el('ebsOptimizedSupport', 'default'),
        el('encryptionSupport', 'supported'),
        el('nvmeSupport', 'required'),
      ),
      el(
        'networkInfo',
        el('networkPerformance', 'Up to 10 Gigabit'),
        el('maximumNetworkInterfaces', 4),
        el('ipv4AddressesPerInterface', 15),
        el('ipv6AddressesPerInterface', 15),
        el('ipv6Supported', true),
        el('enaSupport', 'required'),
      ),
      t.gpus
        ? el(
            'gpuInfo',
            itemList('gpus', t.gpus, (g) => [
              el('name', g.name),
              el('manufacturer', g.manufacturer),
              el('count', g.count),
              el('memoryInfo', el('sizeInMiB', g.memoryMiB)),
            ]),
            el(
              'totalGpuMemoryInMiB',
              t.gpus.reduce((s, g) => s + g.count * g.memoryMiB, 0),
            ),
          )
        : undefined,
      el(
        'placementGroupInfo',
        itemList('supportedStrategies', ['cluster', 'partition', 'spread'], (s) => s),
      ),
      el('hibernationSupported', false),
      el('burstablePerformanceSupported', t.instanceType.startsWith('t')),
      el('dedicatedHostsSupported', true),
      el('autoRecoverySupported', true),
    ],
  });
}
