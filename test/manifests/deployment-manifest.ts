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
import { imageCommandEntry } from '../../hack/bench/image-commands.js';
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
  spec: {
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: { serviceAccountName: string; containers: Container[]; volumes?: Volume[] };
    };
  };
}

/** The binaries an image runs, by entry point, with the flag parser each one uses. */
const parsers: Record<string, () => Command> = {
  'cmd/machineset-controller.ts': () => programOf(machineSetControllerBinary, {}),
  'cmd/machine-healthcheck.ts': () => programOf(machineHealthCheckBinary, {}),
  'cmd/nodelink-controller.ts': () => programOf(nodeLinkControllerBinary, {}),
};

/** A fresh flag parser of the binary at this entry point (cmd/x.ts); provider binaries export buildProgram(env). */
export async function parserFor(src: string): Promise<Command> {
  const known = parsers[src];
  if (known) return known();
  if (/^cmd\/machine-api-provider-[a-z]+\.ts$/.test(src)) {
    const mod = (await import(pathToFileURL(join(repo, src)).href)) as {
      buildProgram?: (env: NodeJS.ProcessEnv) => Command;
    };
    if (typeof mod.buildProgram !== 'function') throw new Error(`${src} exports no buildProgram(env)`);
    return mod.buildProgram({});
  }
  throw new Error(`no flag parser known for ${src}`);
}

/** The standard flags a controller container's args give its binary, parsed by that binary's own parser. */
export async function flagsOf(c: Container, cloud: string) {
  return readStandardFlags(parseArgs(await parserFor(sourceOf(c, cloud)), c.args ?? []));
}

/** The source of the binary a container runs (through image/launch), e.g. cmd/machineset-controller.ts. */
export function sourceOf(c: Container, cloud: string): string {
  const [command, ...rest] = c.command ?? [];
  const src = command && rest.length === 0 ? imageCommandEntry(command, cloud) : undefined;
  if (!src) throw new Error(`${c.name}: ${JSON.stringify(c.command)} is not one of the image's commands`);
  return src;
}

/** The containers running one of our binaries (the rest are the kube-rbac-proxy sidecars, on the image's entry point). */
export const controllersOf = (d: Deployment): Container[] =>
  d.spec.template.spec.containers.filter((c) => !c.name.startsWith('kube-rbac-proxy-'));

export function readDeployment(cloud: string): Deployment {
  const docs = readManifest(join(repo, 'manifests', 'providers', cloud, 'deployment.yaml'));
  const d = docs.find((x) => x.kind === 'Deployment');
  if (!d) throw new Error(`manifests/providers/${cloud}/deployment.yaml has no Deployment`);
  return d as unknown as Deployment;
}

/** The clouds with a deployment.yaml. */
export const deploymentClouds = (): string[] =>
  readdirSync(join(repo, 'manifests', 'providers')).filter((c) =>
    existsSync(join(repo, 'manifests', 'providers', c, 'deployment.yaml')),
  );
