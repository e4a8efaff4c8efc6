// manifests/providers/<cloud>/deployment.yaml: what the operator would run. Each controller container's args
// must parse with its binary's own flag parser and agree with its ports and probes; its command must be one the
// Containerfile's image holds at its root, starting a binary compiled into /app/dist (image/launch; its own test
// checks the mapping). The kube-rbac-proxy sidecars are checked against the binaries' metrics addresses in
// monitoring.test.ts.
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { TRUSTED_CA_BUNDLE_PATH } from '../../cmd/internal/index.js';
import { parseArgs } from '../../cmd/local/local-binary.js';
import {
  controllersOf,
  deploymentClouds,
  flagsOf,
  parserFor,
  readDeployment,
  sourceOf,
  type Container,
  type Probe,
} from './deployment-manifest.js';
import { readManifestDir, repo } from './manifest-files.js';
import { maoArgs } from '../cmd/mao-args.js';

const portOf = (addr: string) => Number(/:(\d+)$/.exec(addr)?.[1]);

const clouds = deploymentClouds();

describe('manifests/providers/*/deployment.yaml', () => {
  it('exists for AWS', () => {
    expect(clouds).to.include('aws');
  });

  it("runs the operator's commands, which the Containerfile links to image/launch, starting binaries built into /app/dist from sources tsconfig.build.json compiles", () => {
    const containerfile = readFileSync(join(repo, 'Containerfile'), 'utf8');
    const linked = /^RUN for c in ([a-z -]+); do/m.exec(containerfile)?.[1]?.split(' ') ?? [];
    expect(containerfile).to.match(/^\s+ln -s \/app\/image\/launch "\/\$c"; \\$/m);
    expect(containerfile).to.match(/^WORKDIR \/app$/m);
    expect(containerfile).to.match(/^COPY --from=build \/src\/dist \.\/dist$/m);
    expect(containerfile).to.match(/^COPY cmd \.\/cmd$/m);
    expect(containerfile).to.match(/^RUN npm run build/m);
    const build = JSON.parse(readFileSync(join(repo, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
    const base = JSON.parse(readFileSync(join(repo, 'tsconfig.json'), 'utf8')) as {
      compilerOptions: { outDir: string; rootDir: string };
    };
    expect(build.include).to.include('cmd/**/*.ts');
    expect(base.compilerOptions).to.include({ outDir: 'dist', rootDir: '.' });
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.build).to.equal('tsc -p tsconfig.build.json');
    for (const cloud of clouds) {
      for (const c of readDeployment(cloud).spec.template.spec.containers) {
        if (c.name.startsWith('kube-rbac-proxy-')) continue;
        expect(c.command, c.name).to.have.length(1);
        expect(linked, `${cloud}/${c.name}: ${c.command?.[0]} in the image`).to.include(c.command![0]!.slice(1));
        const src = sourceOf(c, cloud);
        expect(existsSync(join(repo, src)), `${cloud}/${c.name}: ${src}`).to.equal(true);
      }
    }
  });

  for (const cloud of clouds) {
    describe(cloud, () => {
      const d = readDeployment(cloud);
      const containers = controllersOf(d);

      it("runs the operator's containers in its order: the MachineSet controller, the provider binary, NodeLink, MachineHealthCheck, then one kube-rbac-proxy per metrics endpoint", () => {
        expect(d.spec.template.spec.containers.map((c) => c.name)).to.deep.equal([
          'machineset-controller',
          'machine-controller',
          'nodelink-controller',
          'machine-healthcheck-controller',
          'kube-rbac-proxy-machineset-mtrc',
          'kube-rbac-proxy-machine-mtrc',
          'kube-rbac-proxy-mhc-mtrc',
        ]);
        expect(containers.map((c) => c.command)).to.deep.equal([
          ['/machineset-controller'],
          ['/machine-controller-manager'],
          ['/nodelink-controller'],
          ['/machine-healthcheck'],
        ]);
        expect(containers.map((c) => sourceOf(c, cloud))).to.deep.equal([
          'cmd/machineset-controller.ts',
          `cmd/machine-api-provider-${cloud}.ts`,
          'cmd/nodelink-controller.ts',
          'cmd/machine-healthcheck.ts',
        ]);
      });

      it('gives the provider binary NODE_NAME from the downward API and RELEASE_VERSION, the trusted CA bundle and the bound service-account token where the binaries read them', () => {
        const machine = containers.find((c) => c.name === 'machine-controller') as Container & {
          env?: Array<{ name: string; value?: string; valueFrom?: unknown }>;
          volumeMounts?: Array<{ name: string; mountPath: string }>;
        };
        expect(machine.env?.find((e) => e.name === 'NODE_NAME')?.valueFrom).to.deep.equal({
          fieldRef: { fieldPath: 'spec.nodeName' },
        });
        expect(machine.env?.find((e) => e.name === 'RELEASE_VERSION')?.value)
          .to.be.a('string')
          .and.not.equal('');
        const mounts = new Map(machine.volumeMounts?.map((m) => [m.mountPath, m.name]));
        expect(mounts.get(dirname(TRUSTED_CA_BUNDLE_PATH))).to.equal('trusted-ca');
        expect(mounts.get('/var/run/secrets/openshift/serviceaccount')).to.equal('bound-sa-token');
        const volumes = (
          d.spec.template.spec as unknown as {
            volumes: Array<{ name: string; configMap?: { items?: Array<{ path: string }> } }>;
          }
        ).volumes;
        expect(volumes.find((v) => v.name === 'trusted-ca')?.configMap?.items?.map((i) => i.path)).to.deep.equal([
          basename(TRUSTED_CA_BUNDLE_PATH),
        ]);
      });

      it("passes each controller the operator's argument list (test/cmd/mao-args.ts), plus only --metrics-bind-address (checked to be loopback below)", () => {
        const operatorArgs: Record<string, string[]> = {
          'machineset-controller': maoArgs.machineSetController,
          'machine-controller': maoArgs.machineController(cloud as 'aws' | 'gcp' | 'ibmcloud'),
          'nodelink-controller': maoArgs.nodeLinkController,
          'machine-healthcheck-controller': maoArgs.machineHealthCheck,
        };
        // The operator lists the cluster's every gate; the manifest lists the one the binaries act on.
        const comparable = (args: string[]) =>
          args
            .filter((a) => !a.startsWith('--metrics-bind-address='))
            .map((a) => (a.startsWith('--feature-gates=') ? '--feature-gates=…' : a));
        for (const c of containers) {
          expect(comparable(c.args ?? []), c.name).to.deep.equal(comparable(operatorArgs[c.name] ?? []));
        }
      });

      it('runs as the ServiceAccount the RBAC binds, in the namespace the binaries watch', () => {
        expect(d.spec.template.spec.serviceAccountName).to.equal('machine-api-controllers');
        expect(d.metadata.namespace).to.equal('openshift-machine-api');
        const sa = readManifestDir('rbac').find((x) => x.kind === 'ServiceAccount');
        expect(sa?.metadata).to.include({ name: 'machine-api-controllers', namespace: d.metadata.namespace });
        for (const [k, v] of Object.entries(d.spec.selector.matchLabels))
          expect(d.spec.template.metadata.labels[k]).to.equal(v);
      });

      for (const c of containers) {
        it(`${c.name}: args parse with the binary's own flags, as the operator passes them`, async () => {
          const flags = await flagsOf(c, cloud);
          expect(flags.namespace).to.equal(d.metadata.namespace);
          expect(flags.leaderElect).to.equal(true);
          expect(flags.leaderElectLeaseDurationMs).to.equal(120_000);
          expect(flags.v).to.equal(3);
        });

        it(`${c.name}: serves probes on the port it declares (none when its listeners are off, as NodeLink's), and metrics on loopback only`, async () => {
          const flags = await flagsOf(c, cloud);
          const ports = new Map((c.ports ?? []).map((p) => [p.name, p.containerPort]));
          if (flags.metricsBindAddress === '0' && flags.healthAddr === '') {
            expect(ports.size, `${c.name} ports`).to.equal(0);
            expect(
              [c.readinessProbe, c.livenessProbe, c.startupProbe].filter(Boolean),
              `${c.name} probes`,
            ).to.deep.equal([]);
            return;
          }
          // Plain-HTTP metrics are for the kube-rbac-proxy sidecar in this pod only; it serves them over TLS.
          expect(flags.metricsBindAddress, `${c.name} --metrics-bind-address`).to.match(/^127\.0\.0\.1:\d+$/);
          expect([...ports.values()]).to.not.include(portOf(flags.metricsBindAddress));
          expect([...ports.values()]).to.include(portOf(flags.healthAddr));
          for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe].filter(
            (p): p is Probe => p !== undefined,
          )) {
            expect(['/healthz', '/readyz']).to.include(probe.httpGet?.path);
            const port = typeof probe.httpGet?.port === 'string' ? ports.get(probe.httpGet.port) : probe.httpGet?.port;
            expect(port, `${c.name} probe port`).to.equal(portOf(flags.healthAddr));
          }
          expect(c.readinessProbe, `${c.name} readinessProbe`).to.not.equal(undefined);
          expect(c.livenessProbe, `${c.name} livenessProbe`).to.not.equal(undefined);
        });
      }

      it('gives every container of the pod its own ports and its own leader-election lease', async () => {
        const every = d.spec.template.spec.containers;
        const all = every.flatMap((c) => (c.ports ?? []).map((p) => p.containerPort));
        expect(new Set(all).size).to.equal(all.length);
        // Port names are per container (the operator names every health port "healthz"); a probe finds its own.
        for (const c of every) {
          const names = (c.ports ?? []).map((p) => p.name);
          expect(new Set(names).size, c.name).to.equal(names.length);
          expect(
            names.every((n) => n.length <= 15),
            'port names are at most 15 characters',
          ).to.equal(true);
        }
        const leases = await Promise.all(containers.map(async (c) => (await flagsOf(c, cloud)).leaderElectId));
        expect(new Set(leases).size).to.equal(leases.length);
      });

      it('rejects args a binary does not know, so the check above means something', async () => {
        const parser = await parserFor(sourceOf(containers[0]!, cloud));
        expect(() => parseArgs(parser, ['--no-such-flag'])).to.throw(/no-such-flag/);
      });
    });
  }
});
