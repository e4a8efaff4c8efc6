// Builds an instance's attached disks from an instances.insert body: attaches existing disks that are free,
// creates the others from their initializeParams (size checked against the image), and finds the boot image
// the instance's architecture and UEFI features follow.
import { alreadyExists, GceApiError, invalidField, notFound } from './api-error.js';
import type { GceState } from './gce-state.js';
import type { Json } from './insert-body.js';
import { list, obj } from './insert-body.js';
import { imagePath, selfLink, zonePath } from './links.js';
import type { GceDisk, GceImage } from './model.js';
import { resolveDiskTypeRef, resolveImageRef } from './references.js';
import { gceTimestamp } from './timestamps.js';
import { checkLabels, checkName, fingerprint, readInt64 } from './validation.js';

export function buildDisks(
  state: GceState,
  project: string,
  zone: string,
  instanceName: string,
  raw: unknown,
  now: number,
): { attached: Json[]; disks: GceDisk[]; bootImage?: GceImage } {
  const entries = list(raw);
  if (entries.length === 0) throw invalidField('resource.disks', '', 'At least one disk (the boot disk) is required.');
  const attached: Json[] = [];
  const disks: GceDisk[] = [];
  let bootImage: GceImage | undefined;
  const names = new Set<string>();
  entries.forEach((e, i) => {
    const d = obj(e);
    const field = `resource.disks[${i}]`;
    const boot = d.boot === true;
    if (boot && i !== 0) throw invalidField(`${field}.boot`, 'true', 'The boot disk must be the first disk.');
    if (i === 0 && !boot) throw invalidField('resource.disks[0].boot', 'false', 'The first disk must be a boot disk.');
    let diskName: string;
    let sizeGb: number;
    let image: GceImage | undefined;
    let existing: GceDisk | undefined;
    if (typeof d.source === 'string' && d.source !== '') {
      const parts = d.source.split('/');
      diskName = parts[parts.length - 1] ?? '';
      existing = state.world.disks.find((x) => x.project === project && x.zone === zone && x.name === diskName);
      if (!existing) throw notFound(`${zonePath(project, zone)}/disks/${diskName}`);
      if (((existing.resource.users as string[] | undefined) ?? []).length > 0) {
        throw new GceApiError(
          400,
          'resourceInUseByAnotherResource',
          `The disk resource '${zonePath(project, zone)}/disks/${diskName}' is already being used by another instance`,
        );
      }
      sizeGb = Number(existing.resource.sizeGb);
    } else {
      const p = obj(d.initializeParams);
      diskName =
        typeof p.diskName === 'string' && p.diskName !== ''
          ? checkName(`${field}.initializeParams.diskName`, p.diskName)
          : i === 0
            ? instanceName
            : `${instanceName}-${state.knobs.random.hex(4)}`;
      if (typeof p.sourceImage === 'string' && p.sourceImage !== '')
        image = resolveImageRef(state, project, p.sourceImage, `${field}.initializeParams.sourceImage`);
      else if (boot)
        throw invalidField(
          `${field}.initializeParams.sourceImage`,
          '',
          'A boot disk needs a source image or an existing disk.',
        );
      const diskType = resolveDiskTypeRef(state, project, zone, p.diskType, `${field}.initializeParams.diskType`);
      const requested = readInt64(`${field}.initializeParams.diskSizeGb`, p.diskSizeGb);
      sizeGb = requested ?? image?.diskSizeGb ?? 10;
      if (image && sizeGb < image.diskSizeGb) {
        throw invalidField(
          `${field}.initializeParams.diskSizeGb`,
          String(sizeGb),
          `Requested disk size cannot be smaller than the image size (${image.diskSizeGb} GB).`,
        );
      }
      if (sizeGb < 1 || sizeGb > 65536)
        throw invalidField(
          `${field}.initializeParams.diskSizeGb`,
          String(sizeGb),
          'Disk size must be between 1 and 65536 GB.',
        );
      if (
        names.has(diskName) ||
        state.world.disks.some((x) => x.project === project && x.zone === zone && x.name === diskName)
      ) {
        throw alreadyExists(`${zonePath(project, zone)}/disks/${diskName}`);
      }
      const labels = checkLabels(`${field}.initializeParams.labels`, p.labels);
      const diskPath = `${zonePath(project, zone)}/disks/${diskName}`;
      const resource: Json = {
        kind: 'compute#disk',
        id: state.newId(),
        creationTimestamp: gceTimestamp(now),
        name: diskName,
        sizeGb: String(sizeGb),
        zone: selfLink(zonePath(project, zone)),
        status: 'READY',
        selfLink: selfLink(diskPath),
        type: selfLink(`${zonePath(project, zone)}/diskTypes/${diskType}`),
        labels,
        labelFingerprint: fingerprint(labels),
        physicalBlockSizeBytes: '4096',
        architecture: image?.architecture,
      };
      if (image) {
        resource.sourceImage = selfLink(imagePath(image.project, image.name));
        resource.sourceImageId = image.id;
        resource.guestOsFeatures = image.guestOsFeatures.map((type) => ({ type }));
      }
      const key = obj(d.diskEncryptionKey);
      if (typeof key.kmsKeyName === 'string') {
        resource.diskEncryptionKey = {
          kmsKeyName: `${key.kmsKeyName}/cryptoKeyVersions/1`,
          ...(typeof key.kmsKeyServiceAccount === 'string' ? { kmsKeyServiceAccount: key.kmsKeyServiceAccount } : {}),
        };
      }
      disks.push({ project, zone, name: diskName, resource });
    }
    names.add(diskName);
    if (boot) bootImage = image ?? imageOfDisk(state, existing);
    const att: Json = {
      kind: 'compute#attachedDisk',
      type: 'PERSISTENT',
      mode: d.mode === 'READ_ONLY' ? 'READ_ONLY' : 'READ_WRITE',
      source: selfLink(`${zonePath(project, zone)}/disks/${diskName}`),
      deviceName:
        typeof d.deviceName === 'string' && d.deviceName !== ''
          ? d.deviceName
          : i === 0
            ? 'persistent-disk-0'
            : `persistent-disk-${i}`,
      index: i,
      boot,
      autoDelete: d.autoDelete === true,
      interface: d.interface === 'NVME' ? 'NVME' : 'SCSI',
      diskSizeGb: String(sizeGb),
    };
    const features = (image ?? imageOfDisk(state, existing))?.guestOsFeatures;
    if (features) att.guestOsFeatures = features.map((type) => ({ type }));
    const dek = disks.find((x) => x.name === diskName)?.resource.diskEncryptionKey;
    if (dek) att.diskEncryptionKey = dek;
    attached.push(att);
  });
  return { attached, disks, bootImage };
}

function imageOfDisk(state: GceState, disk: GceDisk | undefined): GceImage | undefined {
  const src = disk?.resource.sourceImage;
  if (typeof src !== 'string') return undefined;
  const parts = src.split('/');
  return state.world.images.find((i) => i.project === parts[parts.length - 4] && i.name === parts[parts.length - 1]);
}
