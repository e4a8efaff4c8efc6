// Reads CustomResourceDefinitions from YAML (or JSON) files in directories: every document of kind
// CustomResourceDefinition in every *.yaml, *.yml or *.json file, in file-name order.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { CRDObject } from './crd.js';

export class CRDLoadError extends Error {
  override readonly name = 'CRDLoadError';
}

export interface LoadedCRD {
  file: string;
  crd: CRDObject;
}

export function loadCrdDirs(dirs: string[]): LoadedCRD[] {
  const out: LoadedCRD[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      if (!statSync(dir).isDirectory()) throw new CRDLoadError(`CRD directory ${dir} is not a directory`);
      names = readdirSync(dir)
        .filter((n) => /\.(ya?ml|json)$/.test(n))
        .sort();
    } catch (err) {
      if (err instanceof CRDLoadError) throw err;
      throw new CRDLoadError(`cannot read CRD directory ${dir}: ${(err as Error).message}`);
    }
    for (const n of names) {
      const file = join(dir, n);
      for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
        if (doc.errors.length > 0) throw new CRDLoadError(`${file}: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
        const value = doc.toJS() as unknown;
        if (value && typeof value === 'object' && (value as { kind?: unknown }).kind === 'CustomResourceDefinition') {
          out.push({ file, crd: value as CRDObject });
        }
      }
    }
  }
  return out;
}
