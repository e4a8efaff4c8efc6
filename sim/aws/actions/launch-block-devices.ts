// Reading and validating a RunInstances request's block-device mappings, with EC2's error codes and wording:
// sizes against the image's root snapshot, iops and throughput per volume type, and a root device added when
// the request maps none.
import { Ec2ApiError, invalidParameterCombination, invalidParameterValue, missingParameter } from '../api-error.js';
import type { BlockDevice, Image } from '../model.js';
import type { QueryParams } from '../query-params.js';
import { oneOf } from '../validation.js';

const VOLUME_TYPES = ['standard', 'gp2', 'gp3', 'io1', 'io2', 'st1', 'sc1'] as const;

export function readBlockDevices(params: QueryParams, image: Image): Omit<BlockDevice, 'volumeId'>[] {
  const out: Omit<BlockDevice, 'volumeId'>[] = [];
  let hasRoot = false;
  for (const m of params.structList('BlockDeviceMapping')) {
    const deviceName = m.get('DeviceName');
    if (!deviceName) throw missingParameter('BlockDeviceMapping.N.DeviceName');
    if (out.some((b) => b.deviceName === deviceName)) {
      throw new Ec2ApiError(
        400,
        'InvalidBlockDeviceMapping',
        `The device '${deviceName}' is used in more than one block-device mapping`,
      );
    }
    if (m.get('NoDevice') !== undefined || m.get('VirtualName') !== undefined) continue;
    const isRoot = deviceName === image.rootDeviceName;
    hasRoot ||= isRoot;
    const volumeType = oneOf(m.get('Ebs.VolumeType'), VOLUME_TYPES, 'blockDeviceMapping.ebs.volumeType') ?? 'gp3';
    const size = m.int('Ebs.VolumeSize') ?? (isRoot ? image.rootVolumeSizeGiB : undefined);
    if (size === undefined)
      throw new Ec2ApiError(
        400,
        'InvalidBlockDeviceMapping',
        `The device '${deviceName}' needs Ebs.VolumeSize (there is no snapshot to size it from)`,
      );
    if (size < 1 || size > 16384)
      throw invalidParameterValue(`Value (${size}) for parameter volumeSize is invalid. Expected 1-16384 GiB.`);
    if (isRoot && size < image.rootVolumeSizeGiB) {
      throw new Ec2ApiError(
        400,
        'InvalidBlockDeviceMapping',
        `Volume of size ${size}GB is smaller than snapshot '${image.snapshotId}', expect size >= ${image.rootVolumeSizeGiB}GB`,
      );
    }
    const iops = m.int('Ebs.Iops');
    if (iops !== undefined && !['io1', 'io2', 'gp3'].includes(volumeType)) {
      throw invalidParameterCombination(`The parameter iops is not supported for ${volumeType} volumes.`);
    }
    if ((volumeType === 'io1' || volumeType === 'io2') && iops === undefined) {
      throw missingParameter('iops (required for io1 and io2 volumes)');
    }
    const throughput = m.int('Ebs.Throughput');
    if (throughput !== undefined && volumeType !== 'gp3') {
      throw invalidParameterCombination(`The parameter throughput is not supported for ${volumeType} volumes.`);
    }
    const kmsKeyId = m.get('Ebs.KmsKeyId');
    const encrypted = m.bool('Ebs.Encrypted') ?? false;
    if (kmsKeyId !== undefined && !encrypted) {
      throw new Ec2ApiError(
        400,
        'InvalidParameterDependency',
        'The parameter KmsKeyId requires the parameter Encrypted to be set.',
      );
    }
    out.push({
      deviceName,
      volumeSizeGiB: size,
      volumeType,
      encrypted,
      deleteOnTermination: m.bool('Ebs.DeleteOnTermination') ?? true,
      iops,
      throughput,
      kmsKeyId,
    });
  }
  if (!hasRoot) {
    out.unshift({
      deviceName: image.rootDeviceName,
      volumeSizeGiB: image.rootVolumeSizeGiB,
      volumeType: 'gp3',
      encrypted: false,
      deleteOnTermination: true,
    });
  }
  return out;
}
