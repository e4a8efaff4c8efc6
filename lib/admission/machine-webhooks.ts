// The four webhooks of the machine-api-operator, as functions from an AdmissionRequest to an
// AdmissionResponse: Machine and MachineSet, mutating (defaults written back through a JSON Patch) and
// validating (denials naming the field path from the object root; warnings for what is only suspicious).
// The cloud-specific part comes from the platform's MachineAdmission plug-in; without one (a platform this
// build has no provider for) the providerSpec is left alone, as the reference does.
import { MachineClusterIDLabel, MachineRoleLabel, MachineTypeLabel } from '../apis/constants.js';
import type { Machine, MachineSet } from '../apis/machine-types.js';
import { isNotFound } from '../client/errors.js';
import type { SecretReader } from '../cloud/secret-reader.js';
import { invalidValue, requiredValue, type FieldIssue } from '../cloud/spec-reader.js';
import { allowedResponse, deniedResponse, erroredResponse } from './admission-response.js';
import type { AdmissionRequest, AdmissionResponse } from './admission-review.js';
import { checkAuthoritativeAPI } from './authoritative-api-rules.js';
import { aggregateMessage } from './field-errors.js';
import { fillDefaults } from './fill-defaults.js';
import { diffToJsonPatch } from './json-patch-diff.js';
import { isFinalizerOnlyRemoval, validateLifecycleHooks } from './lifecycle-hook-rules.js';
import type { AdmissionInfrastructure, MachineAdmission, ProviderSpecContext } from './machine-admission.js';
import { validateMachineSetSpec } from './machineset-spec-rules.js';
import { deletionSettingIssues } from '../machine/drain/drain-settings.js';

export interface MachineWebhookOptions {
  infrastructure: AdmissionInfrastructure;
  /** The plug-in for infrastructure.platformType; undefined leaves providerSpecs unchecked. */
  plugin?: MachineAdmission;
  /** Reads Secrets for the "credentials Secret not found" warning; without it that check is skipped. */
  secrets?: SecretReader;
  featureGates?: Readonly<Record<string, boolean>>;
  /** Bounds each Secret read. */
  secretReadTimeoutMs?: number;
}

const MachineFieldRoot = 'spec.providerSpec.value';
const MachineSetFieldRoot = 'spec.template.spec.providerSpec.value';

function isControlPlane(labels: Record<string, string> | undefined): boolean {
  return labels?.[MachineRoleLabel] === 'master' || labels?.[MachineTypeLabel] === 'master';
}

/** The object of the request when it is of `kind`; otherwise the errored response to return. */
function objectOf<T>(req: AdmissionRequest, kind: 'Machine' | 'MachineSet'): { obj: T; old?: T } | AdmissionResponse {
  if (req.kind.kind !== kind || req.kind.group !== 'machine.openshift.io') {
    return erroredResponse(
      req.uid,
      400,
      `expected a ${kind} but got a ${req.kind.group ? `${req.kind.group}/` : ''}${req.kind.kind.slice(0, 100)}`,
    );
  }
  const obj = req.object;
  if (!obj) return erroredResponse(req.uid, 400, `request.object: Required value: the ${kind} to admit`);
  if (typeof obj.metadata !== 'object' || obj.metadata === null)
    return erroredResponse(req.uid, 400, 'request.object.metadata: must be an object');
  return { obj: obj as unknown as T, old: (req.oldObject ?? undefined) as unknown as T | undefined };
}

const isResponse = (v: unknown): v is AdmissionResponse => typeof v === 'object' && v !== null && 'allowed' in v;

function providerDefaults(
  o: MachineWebhookOptions,
  value: unknown,
  ctx: ProviderSpecContext,
): { value: unknown; warnings: string[] } {
  if (!o.plugin) return { value, warnings: [] };
  const defaulted = o.plugin.default(value, ctx);
  return { value: fillDefaults(value, defaulted.value), warnings: defaulted.warnings };
}

async function credentialsWarning(
  o: MachineWebhookOptions,
  namespace: string | undefined,
  name: string | undefined,
  fieldRoot: string,
): Promise<string[]> {
  if (!o.secrets || !name || !namespace) return [];
  const field = `${fieldRoot}.credentialsSecret`;
  try {
    await o.secrets.get({ namespace, name }, { signal: AbortSignal.timeout(o.secretReadTimeoutMs ?? 5_000) });
    return [];
  } catch (err) {
    if (isNotFound(err)) return [invalidValue(field, name, 'not found. Expected CredentialsSecret to exist').message];
    return [
      invalidValue(
        field,
        name,
        `failed to get credentialsSecret: ${(err as Error).message?.slice(0, 200) ?? String(err)}`,
      ).message,
    ];
  }
}

async function validateProviderSpec(
  o: MachineWebhookOptions,
  value: unknown,
  ctx: ProviderSpecContext,
  namespace: string | undefined,
): Promise<{ errors: FieldIssue[]; warnings: string[] }> {
  if (!o.plugin) return { errors: [], warnings: [] };
  if (value === undefined || value === null)
    return { errors: [requiredValue(ctx.fieldRoot, 'a value must be provided')], warnings: [] };
  const result = o.plugin.validate(value, ctx);
  const warnings = [
    ...result.warnings,
    ...(await credentialsWarning(o, namespace, result.credentialsSecret, ctx.fieldRoot)),
  ];
  return { errors: result.errors, warnings };
}

function answer(uid: string, errors: FieldIssue[], warnings: string[]): AdmissionResponse {
  return errors.length > 0
    ? deniedResponse(uid, aggregateMessage(errors), warnings)
    : allowedResponse(uid, { warnings });
}

/** Defaults a new Machine: the cluster label (only when absent: another value would orphan the Machine) and its providerSpec. */
export function mutateMachineAdmission(req: AdmissionRequest, o: MachineWebhookOptions): AdmissionResponse {
  const got = objectOf<Machine>(req, 'Machine');
  if (isResponse(got)) return got;
  if (req.operation !== 'CREATE') return allowedResponse(req.uid);
  const after = structuredClone(got.obj);
  const labels = after.metadata.labels ?? {};
  if (!Object.hasOwn(labels, MachineClusterIDLabel))
    after.metadata.labels = { ...labels, [MachineClusterIDLabel]: o.infrastructure.clusterId };
  let warnings: string[] = [];
  if (o.plugin) {
    const value = after.spec?.providerSpec?.value;
    if (value === undefined || value === null)
      return deniedResponse(req.uid, requiredValue(MachineFieldRoot, 'a value must be provided').message);
    const ctx = {
      fieldRoot: MachineFieldRoot,
      controlPlane: isControlPlane(after.metadata.labels),
      infrastructure: o.infrastructure,
    };
    const defaulted = providerDefaults(o, value, ctx);
    after.spec!.providerSpec!.value = defaulted.value as Record<string, unknown>;
    warnings = defaulted.warnings;
  }
  return allowedResponse(req.uid, { patch: diffToJsonPatch(got.obj, after), warnings });
}

/** Defaults a new MachineSet's template providerSpec as a Machine's. */
export function mutateMachineSetAdmission(req: AdmissionRequest, o: MachineWebhookOptions): AdmissionResponse {
  const got = objectOf<MachineSet>(req, 'MachineSet');
  if (isResponse(got)) return got;
  if (req.operation !== 'CREATE' || !o.plugin) return allowedResponse(req.uid);
  const after = structuredClone(got.obj);
  const value = after.spec?.template?.spec?.providerSpec?.value;
  if (value === undefined || value === null)
    return deniedResponse(req.uid, requiredValue(MachineSetFieldRoot, 'a value must be provided').message);
  const ctx = {
    fieldRoot: MachineSetFieldRoot,
    controlPlane: isControlPlane(after.spec?.template?.metadata?.labels),
    infrastructure: o.infrastructure,
  };
  const defaulted = providerDefaults(o, value, ctx);
  after.spec!.template!.spec!.providerSpec!.value = defaulted.value as Record<string, unknown>;
  return allowedResponse(req.uid, { patch: diffToJsonPatch(got.obj, after), warnings: defaulted.warnings });
}

export async function validateMachineAdmission(
  req: AdmissionRequest,
  o: MachineWebhookOptions,
): Promise<AdmissionResponse> {
  const got = objectOf<Machine>(req, 'Machine');
  if (isResponse(got)) return got;
  if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return allowedResponse(req.uid);
  const { obj: m, old } = got;
  const oldMachine = req.operation === 'UPDATE' ? old : undefined;
  if (m.metadata.deletionTimestamp && isFinalizerOnlyRemoval(m, oldMachine)) return allowedResponse(req.uid);
  const errors = [
    ...validateLifecycleHooks(m, oldMachine),
    ...deletionSettingIssues(m.metadata.annotations, 'metadata.annotations', oldMachine?.metadata.annotations),
  ];
  const authority = checkAuthoritativeAPI(m.spec?.authoritativeAPI, 'spec.authoritativeAPI', o.featureGates ?? {});
  const ctx = {
    fieldRoot: MachineFieldRoot,
    controlPlane: isControlPlane(m.metadata.labels),
    infrastructure: o.infrastructure,
  };
  const spec = await validateProviderSpec(o, m.spec?.providerSpec?.value, ctx, m.metadata.namespace ?? req.namespace);
  return answer(req.uid, [...errors, ...authority.errors, ...spec.errors], [...authority.warnings, ...spec.warnings]);
}

export async function validateMachineSetAdmission(
  req: AdmissionRequest,
  o: MachineWebhookOptions,
): Promise<AdmissionResponse> {
  const got = objectOf<MachineSet>(req, 'MachineSet');
  if (isResponse(got)) return got;
  if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return allowedResponse(req.uid);
  const { obj: ms, old } = got;
  const errors = [
    ...validateMachineSetSpec(ms, req.operation === 'UPDATE' ? old : undefined),
    ...deletionSettingIssues(
      ms.spec?.template?.metadata?.annotations,
      'spec.template.metadata.annotations',
      req.operation === 'UPDATE' ? old?.spec?.template?.metadata?.annotations : undefined,
    ),
  ];
  const gates = o.featureGates ?? {};
  const authority = checkAuthoritativeAPI(ms.spec?.authoritativeAPI, 'spec.authoritativeAPI', gates);
  const templateAuthority = checkAuthoritativeAPI(
    ms.spec?.template?.spec?.authoritativeAPI,
    'spec.template.spec.authoritativeAPI',
    gates,
  );
  const ctx = {
    fieldRoot: MachineSetFieldRoot,
    controlPlane: isControlPlane(ms.spec?.template?.metadata?.labels),
    infrastructure: o.infrastructure,
  };
  const spec = await validateProviderSpec(
    o,
    ms.spec?.template?.spec?.providerSpec?.value,
    ctx,
    ms.metadata.namespace ?? req.namespace,
  );
  return answer(
    req.uid,
    [...errors, ...authority.errors, ...templateAuthority.errors, ...spec.errors],
    [...authority.warnings, ...templateAuthority.warnings, ...spec.warnings],
  );
}
