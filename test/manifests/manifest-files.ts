// Reads the YAML documents of manifests/ for the manifest tests.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ManifestDoc {
  file: string;
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [key: string]: unknown;
}

/** Every document of one file; throws naming the file on a YAML error. */
export function readManifest(path: string): ManifestDoc[] {
  const out: ManifestDoc[] = [];
  for (const doc of parseAllDocuments(readFileSync(path, 'utf8'))) {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value = doc.toJS() as Record<string, unknown> | null;
    if (value !== null) out.push({ ...value, file: path });
  }
  return out;
}

/** Every document of every .yaml file directly in manifests/<dir>. */
export function readManifestDir(dir: string): ManifestDoc[] {
  const abs = join(repo, 'manifests', dir);
  return readdirSync(abs)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) => readManifest(join(abs, f)));
}
