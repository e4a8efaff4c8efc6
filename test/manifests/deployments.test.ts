// manifests/providers/<cloud>/deployment.yaml: what the operator would run. Each container's args must parse
// with its binary's own flag parser and agree with its ports and probes; its command must be a file the
// Containerfile's image holds (dist/ from `npm run build` with tsconfig.build.json).
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { pathToFileURL } from 'node:url';
import { machineHealthCheckBinary } from '../../cmd/machine-healthcheck.js';
import { machineSetControllerBinary } from '../../cmd/machineset-controller.js';
import { nodeLinkControllerBinary } from '../../cmd/nodelink-controller.js';
import { readStandardFlags } from '../../cmd/internal/index.js';
import { parseArgs, programOf } from '../../cmd/local/local-binary.js';
import { readManifest, readManifestDir, repo } from './manifest-files.js';

interface Port {
  name: string;
  containerPort: number;
}
interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface Container {
  name: string;
  image: string;
  command: string[];
  args?: string[];
  ports?: Port[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
}
interface Deployment {
  metadata: { name: string; namespace: string };
  spec: { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: { serviceAccountName: string; containers: Container[] } } };
}

/** The binaries an image runs, by entry point, with the flag parser each one uses. */
const parsers: Record<string, () => Command> = {
  'cmd/machineset-controller.ts': () => programOf(machineSetControllerBinary, {}),
  'cmd/machine-healthcheck.ts': () => programOf(machineHealthCheckBinary, {}),
  'cmd/nodelink-controller.ts': () => programOf(nodeLinkControllerBinary, {}),
};

/** A fresh flag parser of the binary at this entry point; provider binaries export buildProgram(env). */
async function parserFor(imagePath: string): Promise<Command> {
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

async function flagsOf(c: Container) {
  return readStandardFlags(parseArgs(await parserFor(scriptOf(c)), c.args ?? []));
}

/** The script a container runs: the last word of `node [flags...] /app/dist/cmd/x.js`. */
const scriptOf = (c: Container): string => c.command[c.command.length - 1] ?? '';

/** /app/dist/cmd/x.js (the image) → cmd/x.ts (the source tsc compiles into it). */
function sourceOf(imagePath: string): string {
  const m = /^\/app\/dist\/(.+)\.js$/.exec(imagePath);
  if (!m) throw new Error(`${imagePath} is not under /app/dist`);
  return `${m[1]}.ts`;
}

const portOf = (addr: string) => Number(/:(\d+)$/.exec(addr)?.[1]);

const clouds = readdirSync(join(repo, 'manifests', 'providers')).filter((c) => existsSync(join(repo, 'manifests', 'providers', c, 'deployment.yaml')));

describe('manifests/providers/*/deployment.yaml', () => {
  it('exists for AWS', () => {
    expect(clouds).to.include('aws');
  });

  it('names binaries that the Containerfile builds into /app/dist from sources tsconfig.build.json compiles', () => {
    const containerfile = readFileSync(join(repo, 'Containerfile'), 'utf8');
    expect(containerfile).to.match(/^WORKDIR \/app$/m);
    expect(containerfile).to.match(/^COPY --from=build \/src\/dist \.\/dist$/m);
    expect(containerfile).to.match(/^COPY cmd \.\/cmd$/m);
    expect(containerfile).to.match(/^RUN npm run build/m);
    const build = JSON.parse(readFileSync(join(repo, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
    const base = JSON.parse(readFileSync(join(repo, 'tsconfig.json'), 'utf8')) as { compilerOptions: { outDir: string; rootDir: string } };
    expect(build.include).to.include('cmd/**/*.ts');
    expect(base.compilerOptions).to.include({ outDir: 'dist', rootDir: '.' });
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.build).to.equal('tsc -p tsconfig.build.json');
    for (const cloud of clouds) {
      for (const c of readDeployment(cloud).spec.template.spec.containers) {
        expect(c.command[0], c.name).to.equal('node');
        const src = sourceOf(scriptOf(c));
        expect(existsSync(join(repo, src)), `${cloud}/${c.name}: ${src}`).to.equal(true);
      }
    }
  });

  for (const cloud of clouds) {
    describe(cloud, () => {
      const d = readDeployment(cloud);
      const containers = d.spec.template.spec.containers;

      it('runs the provider binary, the MachineSet, NodeLink and MachineHealthCheck controllers, each in its own container', () => {
        expect(containers.map((c) => sourceOf(scriptOf(c)))).to.deep.equal([`cmd/machine-api-provider-${cloud}.ts`, 'cmd/machineset-controller.ts', 'cmd/nodelink-controller.ts', 'cmd/machine-healthcheck.ts']);
      });

      it('caps the V8 heap, so that garbage does not grow the resident set with the Machines (hack/bench runs the binaries with these flags)', () => {
        for (const c of containers) expect(c.command.slice(1, -1), c.name).to.deep.equal(['--max-old-space-size=192']);
      });

      it('runs as the ServiceAccount the RBAC binds, in the namespace the binaries watch', () => {
        expect(d.spec.template.spec.serviceAccountName).to.equal('machine-api-controllers');
        expect(d.metadata.namespace).to.equal('openshift-machine-api');
        const sa = readManifestDir('rbac').find((x) => x.kind === 'ServiceAccount');
        expect(sa?.metadata).to.include({ name: 'machine-api-controllers', namespace: d.metadata.namespace });
        for (const [k, v] of Object.entries(d.spec.selector.matchLabels)) expect(d.spec.template.metadata.labels[k]).to.equal(v);
      });

      for (const c of containers) {
        it(`${c.name}: args parse with the binary's own flags, as the operator passes them`, async () => {
          const flags = await flagsOf(c);
          expect(flags.namespace).to.equal(d.metadata.namespace);
          expect(flags.leaderElect).to.equal(true);
          expect(flags.leaderElectLeaseDurationMs).to.equal(120_000);
          expect(flags.v).to.equal(3);
        });

        it(`${c.name}: serves metrics and probes on the ports it declares (none when its listeners are off, as NodeLink's)`, async () => {
          const flags = await flagsOf(c);
          const ports = new Map((c.ports ?? []).map((p) => [p.name, p.containerPort]));
          if (flags.metricsBindAddress === '0' && flags.healthAddr === '') {
            expect(ports.size, `${c.name} ports`).to.equal(0);
            expect([c.readinessProbe, c.livenessProbe, c.startupProbe].filter(Boolean), `${c.name} probes`).to.deep.equal([]);
            return;
          }
          expect([...ports.values()]).to.include(portOf(flags.metricsBindAddress));
          expect([...ports.values()]).to.include(portOf(flags.healthAddr));
          for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe].filter((p): p is Probe => p !== undefined)) {
            expect(['/healthz', '/readyz']).to.include(probe.httpGet?.path);
            const port = typeof probe.httpGet?.port === 'string' ? ports.get(probe.httpGet.port) : probe.httpGet?.port;
            expect(port, `${c.name} probe port`).to.equal(portOf(flags.healthAddr));
          }
          expect(c.readinessProbe, `${c.name} readinessProbe`).to.not.equal(undefined);
          expect(c.livenessProbe, `${c.name} livenessProbe`).to.not.equal(undefined);
        });
      }

      it('gives every container of the pod its own ports and its own leader-election lease', async () => {
        const all = containers.flatMap((c) => (c.ports ?? []).map((p) => p.containerPort));
        expect(new Set(all).size).to.equal(all.length);
        const names = containers.flatMap((c) => (c.ports ?? []).map((p) => p.name));
        expect(new Set(names).size).to.equal(names.length);
        expect(names.every((n) => n.length <= 15), 'port names are at most 15 characters').to.equal(true);
        const leases = await Promise.all(containers.map(async (c) => (await flagsOf(c)).leaderElectId));
        expect(new Set(leases).size).to.equal(leases.length);
      });

      it('rejects args a binary does not know, so the check above means something', async () => {
        const parser = await parserFor(scriptOf(containers[0]!));
        expect(() => parseArgs(parser, ['--no-such-flag'])).to.throw(/no-such-flag/);
      });
    });
  }
});

function readDeployment(cloud: string): Deployment {
  const docs = readManifest(join(repo, 'manifests', 'providers', cloud, 'deployment.yaml'));
  const d = docs.find((x) => x.kind === 'Deployment');
  if (!d) throw new Error(`manifests/providers/${cloud}/deployment.yaml has no Deployment`);
  return d as unknown as Deployment;
}
