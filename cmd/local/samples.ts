// The sample objects of a provider (manifests/samples/<provider>/*.yaml), created when absent and never
// updated: a restart must not undo a `kubectl scale` or edit made since.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  isAlreadyExists,
  MachineHealthChecks,
  Machines,
  MachineSets,
  Namespaces,
  Secrets,
  type KubeClient,
  type KubeObject,
  type Resource,
  type Secret,
} from '../../lib/index.js';

const resourcesByKind: Record<string, Resource> = {
  Namespace: Namespaces,
  Secret: Secrets,
  Machine: Machines,
  MachineSet: MachineSets,
  MachineHealthCheck: MachineHealthChecks,
};

export class SampleError extends Error {
  override readonly name = 'SampleError';
}

export interface SampleObject {
  file: string;
  object: KubeObject;
}

/** Every document of every .yaml file in the directory, in file-name order. */
export function readSamples(dir: string): SampleObject[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort()
    .flatMap((name) => readSampleFile(join(dir, name)));
}

/** Every document of one file; a kind the local environment does not create is an error naming the file. */
export function readSampleFile(file: string): SampleObject[] {
  const out: SampleObject[] = [];
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    if (doc.errors.length > 0) throw new SampleError(`${file}: ${doc.errors[0]!.message}`);
    const object = doc.toJS() as KubeObject | null;
    if (object === null) continue;
    if (!object.kind || !resourcesByKind[object.kind]) {
      throw new SampleError(
        `${file}: kind ${JSON.stringify(object.kind)} is not one the local environment creates (${Object.keys(resourcesByKind).join(', ')})`,
      );
    }
    out.push({ file, object });
  }
  return out;
}

/** Creates each object unless one with its name exists. Resolves with the names it created. */
export async function createIfAbsent(client: KubeClient, objects: SampleObject[]): Promise<string[]> {
  const created: string[] = [];
  for (const { object } of objects) {
    const resource = resourcesByKind[object.kind ?? '']!;
    try {
      await client.create(
        resource,
        object.kind === 'Secret' ? withEncodedStringData(object as Secret) : structuredClone(object),
      );
      created.push(`${object.kind}/${object.metadata.name ?? ''}`);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
  return created;
}

/** What kube-apiserver does on write: stringData entries move into data, base64-encoded. */
function withEncodedStringData(secret: Secret): Secret {
  const { stringData, ...rest } = structuredClone(secret);
  if (!stringData) return rest;
  const data = { ...rest.data };
  for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(v, 'utf8').toString('base64');
  return { ...rest, data };
}
