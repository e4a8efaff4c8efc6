// The machine-api-controllers Deployment of manifests/providers/<cloud>/deployment.yaml, read for the manifest
// tests: its containers, and each controller container's flags parsed by that binary's own flag parser.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { machineHealthCheckBinary } from '../../cmd/machine-healthcheck.js';
import { machineSetControllerBinary } from '../../cmd/machineset-controller.js';
import { nodeLinkControllerBinary } from '../../cmd/nodelink-controller.js';
import { readStandardFlags } from '../../cmd/internal/index.js';
import { parseArgs, programOf } from '../../cmd/local/local-binary.js';
import { readManifest, repo } from './manifest-files.js';

export interface Port {
  name: string;
  containerPort: number;
}
export interface Probe {
  httpGet?: { path: string; port: string | number };
}
export interface Container {
  name: string;
  image: string;
  /** Absent on the kube-rbac-proxy sidecars (the image's entry point). */
  command?: string[];
  args?: string[];
  ports?: Port[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
}
export interface Volume {
  name: string;
  secret?: { secretName: string };
  configMap?: { name: string; items?: Array<{ key: string; path: string }> };
}
export interface Deployment {
  metadata: { name: string; namespace: string };
  spec: { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: { serviceAccountName: string; containers: Container[]; volumes?: Volume[] } } };
}

/** The binaries an image runs, by entry point, with the flag parser each one uses. */
const parsers: Record<string, () => Command> = {
  'cmd/machineset-controller.ts': () => programOf(machineSetControllerBinary, {}),
  'cmd/machine-healthcheck.ts': () => programOf(machineHealthCheckBinary, {}),
  'cmd/nodelink-controller.ts': () => programOf(nodeLinkControllerBinary, {}),
};

/** A fresh flag parser of the binary at this entry point; provider binaries export buildProgram(env). */
export async function parserFor(imagePath: string): Promise<Command> {
  const src = sourceOf(imagePath);
  const known = parsers[src];
  if (known) return known();
  if (/^cmd\/machine-api-provider-[a-z]+\.ts$/.test(src)) {
    const mod = (await import(pathToFileURL(join(repo, src)).href)) as { buildProgram?: (env: NodeJS.ProcessEnv) => Command };
    if (typeof mod.buildProgram !== 'function') throw new Error(`${src} exports no buildProgram(env)`);
    return mod.buildProgram({});
  }
  throw new Error(`no flag parser known for ${imagePath}`);
}

export async function flagsOf(c: Container) {
  return readStandardFlags(parseArgs(await parserFor(scriptOf(c)), c.args ?? []));
}

/** The script a container runs: the last word of `node [flags...] /app/dist/cmd/x.js`. */
export const scriptOf = (c: Container): string => c.command?.[c.command.length - 1] ?? '';

/** The containers running one of our binaries (the rest are the kube-rbac-proxy sidecars). */
export const controllersOf = (d: Deployment): Container[] => d.spec.template.spec.containers.filter((c) => c.command?.[0] === 'node');

/** /app/dist/cmd/x.js (the image) → cmd/x.ts (the source tsc compiles into it). */
export function sourceOf(imagePath: string): string {
  const m = /^\/app\/dist\/(.+)\.js$/.exec(imagePath);
  if (!m) throw new Error(`${imagePath} is not under /app/dist`);
  return `${m[1]}.ts`;
}

export function readDeployment(cloud: string): Deployment {
  const docs = readManifest(join(repo, 'manifests', 'providers', cloud, 'deployment.yaml'));
  const d = docs.find((x) => x.kind === 'Deployment');
  if (!d) throw new Error(`manifests/providers/${cloud}/deployment.yaml has no Deployment`);
  return d as unknown as Deployment;
}

/** The clouds with a deployment.yaml. */
export const deploymentClouds = (): string[] =>
  readdirSync(join(repo, 'manifests', 'providers')).filter((c) => existsSync(join(repo, 'manifests', 'providers', c, 'deployment.yaml')));
