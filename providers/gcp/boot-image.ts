// Whether a spec's boot image supports UEFI: when the spec leaves Shielded VM unset, a non-UEFI
// image (pre-4.13 RHCOS, some marketplace images) must get Shielded VM turned off or GCE refuses the insert.
// Answers are cached per image: images are immutable and families change rarely.
import { TtlCache, type Clock } from '../../lib/index.js';
import type { ComputeApi, Image } from './compute-api.js';
import type { GCPMachineProviderSpec } from './provider-spec.js';

export type ImageRef =
  { kind: 'image'; project: string; name: string } | { kind: 'family'; project: string; family: string };

export class ImageReferenceError extends Error {
  override readonly name = 'ImageReferenceError';
}

/** Parses an image reference: a bare name (in `project`), or a path/URL containing projects/{p}/global/images/... */
export function parseImageRef(image: string, project: string): ImageRef {
  if (!image.includes('/')) return { kind: 'image', project, name: image };
  const at = image.indexOf('projects/');
  if (at < 0) throw new ImageReferenceError(`image string "${image}" does not contain expected 'projects/' segment`);
  const parts = image.slice(at + 'projects/'.length).split('/');
  if (parts.length < 4) throw new ImageReferenceError(`unexpected image path format in "${image}"`);
  const [p = '', global, images, fourth = '', fifth] = parts;
  if (global !== 'global' || images !== 'images')
    throw new ImageReferenceError(`unrecognized image path format in "${image}"`);
  if (fourth === 'family' && fifth) return { kind: 'family', project: p, family: fifth };
  return { kind: 'image', project: p, name: fourth };
}

const hasUefi = (img: Image | undefined): boolean =>
  (img?.guestOsFeatures ?? []).some((f) => String(f.type ?? '').toUpperCase() === 'UEFI_COMPATIBLE');

export class BootImageChecker {
  private readonly cache: TtlCache<boolean>;

  constructor(clock: Clock, ttlMs = 3_600_000) {
    this.cache = new TtlCache(clock, ttlMs);
  }

  /** Whether the first boot disk's image is UEFI compatible; undefined when the spec has no boot image. */
  async uefiCompatible(
    compute: ComputeApi,
    spec: GCPMachineProviderSpec,
    project: string,
    signal: AbortSignal,
  ): Promise<boolean | undefined> {
    const image = spec.disks.find((d) => d.boot)?.image;
    if (!image) return undefined;
    const ref = parseImageRef(image, project);
    const key =
      ref.kind === 'image' ? `${ref.project}/image/${ref.name}` : `${ref.project}/${spec.zone}/family/${ref.family}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const img =
      ref.kind === 'image'
        ? await compute.getImage(ref.project, ref.name, { signal })
        : await compute.getImageFamilyView(ref.project, spec.zone, ref.family, { signal });
    const ok = hasUefi(img);
    this.cache.set(key, ok);
    return ok;
  }
}
