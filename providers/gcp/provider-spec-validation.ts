// The semantic rules for a GCP providerSpec: the reference webhook's (MAO machine_webhook.go, GCP part) and
// the ones its actuator enforces only at create time (provisioning model, restart policy, confidential
// compute, accelerators), checked up front so a bad spec fails before any cloud call. Errors name the full
// field path; warnings never fail. GCE's own naming rules (labels, tags) are checked too, so that a typo is
// an InvalidConfiguration naming the field rather than an opaque 400 from instances.insert.
import {
  checkName,
  checkRange,
  forbiddenValue,
  invalidValue,
  keyPath,
  requiredValue,
  unsupportedValue,
  type FieldIssue,
  type NameRule,
} from '../../lib/index.js';
import {
  ConfidentialComputePolicies,
  OnHostMaintenanceTypes,
  ProvisioningModels,
  RestartPolicies,
  ShieldedSettings,
  type GCPMachineProviderSpec,
} from './provider-spec.js';

export interface ValidationResult {
  errors: FieldIssue[];
  warnings: string[];
}

/** GCE: at most 64 labels per resource; the OpenShift label takes one, and the reference keeps 32 for itself. */
export const MAX_USER_LABELS = 32;
export const MAX_RESOURCE_MANAGER_TAGS = 50;
const LABEL_KEY = /^[a-z][a-z0-9_-]{0,62}$/;
const LABEL_VALUE = /^[a-z0-9_-]{0,63}$/;
const NETWORK_TAG = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;
const TAG_PARENT = /(^[1-9][0-9]{0,31}$)|(^[a-z][a-z0-9-]{4,28}[a-z0-9]$)/;
const TAG_KEY = /^[a-zA-Z0-9]([0-9A-Za-z_.-]{0,61}[a-zA-Z0-9])?$/;
const TAG_VALUE = /^[a-zA-Z0-9]([0-9A-Za-z_.@%=+:,*#&()[\]{}\-\s]{0,61}[a-zA-Z0-9])?$/;
/** GCE resource names (regions, zones, machine types): RFC 1035 labels. */
export const GCE_NAME: NameRule = {
  pattern: /^[a-z]([-a-z0-9]*[a-z0-9])?$/,
  maxLength: 63,
  description: 'lower-case letters, digits and "-", starting with a letter and not ending with "-"',
};
/** Project IDs: 6 to 30 characters. */
export const PROJECT_ID: NameRule = {
  pattern: /^[a-z][a-z0-9-]*[a-z0-9]$/,
  minLength: 6,
  maxLength: 30,
  description: 'a project ID: lower-case letters, digits and "-", starting with a letter and not ending with "-"',
};
/** Persistent disks: at most 64 TB. */
export const MAX_DISK_SIZE_GB = 65_536;
/** The most accelerators of one type GCE attaches to an N1 instance. */
export const MAX_GPU_COUNT = 8;

/** Families with accelerators built in (A2, A3, G2): extra guestAccelerators are refused by GCE. */
const BUILT_IN_GPU_FAMILIES = ['a2-', 'a3-', 'g2-'];

const pushIssue = (errors: FieldIssue[], issue: FieldIssue | undefined): void => {
  if (issue) errors.push(issue);
};

const oneOf = (allowed: readonly string[], v: string | undefined): boolean =>
  v === undefined || v === '' || allowed.includes(v);

function validateScheduling(s: GCPMachineProviderSpec, P: string, errors: FieldIssue[]): void {
  if (s.provisioningModel !== undefined && !oneOf(ProvisioningModels, s.provisioningModel)) {
    errors.push(unsupportedValue(`${P}.provisioningModel`, s.provisioningModel, ProvisioningModels));
  }
  const spot = s.provisioningModel === 'Spot';
  if (s.preemptible && spot)
    errors.push(
      forbiddenValue(`${P}.preemptible`, "preemptible cannot be used together with 'Spot' provisioning model"),
    );
  if (!oneOf(OnHostMaintenanceTypes, s.onHostMaintenance))
    errors.push(unsupportedValue(`${P}.onHostMaintenance`, s.onHostMaintenance, OnHostMaintenanceTypes));
  if (!oneOf(RestartPolicies, s.restartPolicy))
    errors.push(unsupportedValue(`${P}.restartPolicy`, s.restartPolicy, RestartPolicies));
  if (s.onHostMaintenance === 'Migrate' && (s.preemptible || spot)) {
    errors.push(
      invalidValue(
        `${P}.onHostMaintenance`,
        s.onHostMaintenance,
        'preemptible/spot instances cannot be live-migrated; use Terminate',
      ),
    );
  }
  if (s.restartPolicy === 'Always' && (s.preemptible || spot)) {
    errors.push(
      invalidValue(
        `${P}.restartPolicy`,
        s.restartPolicy,
        'preemptible/spot instances cannot be automatically restarted',
      ),
    );
  }
}

function validateSecurity(s: GCPMachineProviderSpec, P: string, errors: FieldIssue[]): void {
  const sh = s.shieldedInstanceConfig;
  const shPath = `${P}.shieldedInstanceConfig`;
  for (const key of ['secureBoot', 'virtualizedTrustedPlatformModule', 'integrityMonitoring'] as const) {
    if (!oneOf(ShieldedSettings, sh[key])) errors.push(unsupportedValue(`${shPath}.${key}`, sh[key], ShieldedSettings));
  }
  if (sh.virtualizedTrustedPlatformModule === 'Disabled' && sh.integrityMonitoring !== 'Disabled') {
    errors.push(
      invalidValue(
        `${shPath}.integrityMonitoring`,
        sh.integrityMonitoring ?? '',
        'integrityMonitoring requires virtualizedTrustedPlatformModule Enabled',
      ),
    );
  }
  const cc = s.confidentialCompute;
  if (!oneOf(ConfidentialComputePolicies, cc))
    errors.push(unsupportedValue(`${P}.confidentialCompute`, cc, ConfidentialComputePolicies));
  else if (cc && cc !== 'Disabled' && s.onHostMaintenance !== 'Terminate') {
    errors.push(
      invalidValue(
        `${P}.onHostMaintenance`,
        s.onHostMaintenance ?? '',
        'onHostMaintenance must be Terminate when confidentialCompute is enabled',
      ),
    );
  }
}

function validateGpus(s: GCPMachineProviderSpec, P: string, errors: FieldIssue[]): void {
  const gpus = s.gpus ?? [];
  if (gpus.length === 0) return;
  if (gpus.length > 1) {
    errors.push(
      invalidValue(
        `${P}.gpus`,
        gpus.length,
        'More than one type of accelerator provided. Instances support only one accelerator type at a time.',
      ),
    );
  }
  gpus.forEach((g, i) => {
    if (!g.type)
      errors.push(requiredValue(`${P}.gpus[${i}].type`, 'an accelerator type such as nvidia-tesla-t4 is required'));
    const countIssue = checkRange(`${P}.gpus[${i}].count`, g.count, 1, MAX_GPU_COUNT);
    if (countIssue) errors.push(countIssue);
  });
  if (BUILT_IN_GPU_FAMILIES.some((f) => s.machineType.startsWith(f))) {
    errors.push(
      invalidValue(
        `${P}.gpus`,
        gpus.length,
        `machine type ${s.machineType} has pre-attached guest accelerators; adding additional guest accelerators is not supported`,
      ),
    );
  } else if (!s.machineType.startsWith('n1-')) {
    errors.push(
      invalidValue(
        `${P}.gpus`,
        gpus.length,
        `MachineType ${s.machineType} does not support accelerators. Only N1 machine types accept additional guest accelerators.`,
      ),
    );
  }
  if (s.onHostMaintenance !== 'Terminate') {
    errors.push(
      invalidValue(
        `${P}.onHostMaintenance`,
        s.onHostMaintenance ?? '',
        'onHostMaintenance must be Terminate when gpus are attached',
      ),
    );
  }
}

function validateDisks(s: GCPMachineProviderSpec, P: string, errors: FieldIssue[]): void {
  if (s.disks.length === 0) {
    errors.push(requiredValue(`${P}.disks`, 'at least one disk with boot: true and an image is required'));
    return;
  }
  const boots = s.disks.map((d, i) => ({ d, i })).filter((x) => x.d.boot);
  if (boots.length === 0) errors.push(requiredValue(`${P}.disks`, 'one disk must have boot: true'));
  if (boots.length > 1)
    errors.push(invalidValue(`${P}.disks[${boots[1]?.i ?? 0}].boot`, true, 'only one disk may be the boot disk'));
  s.disks.forEach((d, i) => {
    const path = `${P}.disks[${i}]`;
    if (d.boot && !d.image) errors.push(requiredValue(`${path}.image`, 'boot disk must specify an image'));
    const sizeIssue = checkRange(`${path}.sizeGb`, d.sizeGb, 0, MAX_DISK_SIZE_GB, 'GB');
    if (sizeIssue) errors.push(sizeIssue);
    const kms = d.encryptionKey?.kmsKey;
    if (kms) {
      if (kms.projectID)
        pushIssue(errors, checkName(`${path}.encryptionKey.kmsKey.projectID`, kms.projectID, PROJECT_ID));
      for (const key of ['name', 'keyRing', 'location'] as const) {
        if (!kms[key])
          errors.push(requiredValue(`${path}.encryptionKey.kmsKey.${key}`, `${key} is required for a KMS key`));
      }
    }
    validateLabels(d.labels, `${path}.labels`, errors);
  });
}

function validateLabels(labels: Record<string, string> | undefined, path: string, errors: FieldIssue[]): void {
  if (!labels) return;
  const keys = Object.keys(labels);
  if (keys.length > MAX_USER_LABELS)
    errors.push(invalidValue(path, keys.length, `at most ${MAX_USER_LABELS} user labels are allowed`));
  for (const k of keys) {
    const field = keyPath(path, k);
    if (!LABEL_KEY.test(k))
      errors.push(
        invalidValue(
          field,
          k,
          'label keys must start with a lowercase letter and contain only lowercase letters, digits, "_" and "-" (at most 63)',
        ),
      );
    if (!LABEL_VALUE.test(labels[k] ?? '')) {
      errors.push(
        invalidValue(
          field,
          labels[k],
          'label values may contain only lowercase letters, digits, "_" and "-" (at most 63)',
        ),
      );
    }
  }
}

function validateTags(s: GCPMachineProviderSpec, P: string, errors: FieldIssue[]): void {
  (s.tags ?? []).forEach((t, i) => {
    if (!NETWORK_TAG.test(t))
      errors.push(
        invalidValue(
          `${P}.tags[${i}]`,
          t,
          'network tags must be RFC1035 names: lowercase letters, digits and "-", at most 63',
        ),
      );
  });
  (s.targetPools ?? []).forEach((t, i) => {
    if (!t) errors.push(requiredValue(`${P}.targetPools[${i}]`, 'all target pools must have valid name'));
  });
  const rmTags = s.resourceManagerTags ?? [];
  if (rmTags.length > MAX_RESOURCE_MANAGER_TAGS) {
    errors.push(
      invalidValue(
        `${P}.resourceManagerTags`,
        rmTags.length,
        `at most ${MAX_RESOURCE_MANAGER_TAGS} resource manager tags are allowed`,
      ),
    );
  }
  const seen = new Set<string>();
  rmTags.forEach((t, i) => {
    const path = `${P}.resourceManagerTags[${i}]`;
    if (!TAG_PARENT.test(t.parentID) || t.parentID.length > 32)
      errors.push(invalidValue(`${path}.parentID`, t.parentID, 'must be an organization id (digits) or a project id'));
    if (!TAG_KEY.test(t.key))
      errors.push(
        invalidValue(
          `${path}.key`,
          t.key,
          'must be 1-63 characters: letters, digits, "_", "." and "-", starting and ending alphanumeric',
        ),
      );
    if (!TAG_VALUE.test(t.value))
      errors.push(invalidValue(`${path}.value`, t.value, 'must be 1-63 characters, starting and ending alphanumeric'));
    const id = `${t.parentID}/${t.key}`;
    if (seen.has(id)) errors.push(invalidValue(`${path}.key`, t.key, 'duplicate key for the same parentID'));
    seen.add(id);
  });
}

/** Checks a decoded (and defaulted) spec; `P` is the path of the providerSpec value. */
export function validateProviderSpec(s: GCPMachineProviderSpec, P: string): ValidationResult {
  const errors: FieldIssue[] = [];
  const warnings: string[] = [];
  const regionIssue = s.region
    ? checkName(`${P}.region`, s.region, GCE_NAME)
    : requiredValue(`${P}.region`, 'region is required');
  pushIssue(errors, regionIssue);
  if (!s.zone) errors.push(requiredValue(`${P}.zone`, 'zone is required'));
  else {
    const zoneIssue = checkName(`${P}.zone`, s.zone, GCE_NAME);
    pushIssue(errors, zoneIssue);
    // Compared with the region only once both are valid names: a bad region is reported once, on its own field.
    if (!zoneIssue && !regionIssue && !s.zone.startsWith(`${s.region}-`))
      errors.push(invalidValue(`${P}.zone`, s.zone, `zone not in configured region (${s.region})`));
  }
  pushIssue(errors, checkName(`${P}.machineType`, s.machineType, GCE_NAME));
  if (s.projectID) pushIssue(errors, checkName(`${P}.projectID`, s.projectID, PROJECT_ID));
  if (s.networkInterfaces.length === 0)
    errors.push(requiredValue(`${P}.networkInterfaces`, 'at least 1 network interface is required'));
  s.networkInterfaces.forEach((n, i) => {
    if (!n.network && !n.subnetwork)
      errors.push(requiredValue(`${P}.networkInterfaces[${i}].network`, 'a network or a subnetwork is required'));
    if (n.projectID) pushIssue(errors, checkName(`${P}.networkInterfaces[${i}].projectID`, n.projectID, PROJECT_ID));
  });
  (s.gcpMetadata ?? []).forEach((m, i) => {
    if (!m.key) errors.push(requiredValue(`${P}.gcpMetadata[${i}].key`, 'metadata items need a key'));
  });
  s.serviceAccounts.forEach((sa, i) => {
    if (!sa.email) errors.push(requiredValue(`${P}.serviceAccounts[${i}].email`, 'email is required'));
  });
  validateScheduling(s, P, errors);
  validateSecurity(s, P, errors);
  validateGpus(s, P, errors);
  validateDisks(s, P, errors);
  validateLabels(s.labels, `${P}.labels`, errors);
  validateTags(s, P, errors);
  if (s.serviceAccounts.length === 0)
    warnings.push('providerSpec.serviceAccounts: no service account set; the instance gets no Google credentials');
  return { errors, warnings };
}
