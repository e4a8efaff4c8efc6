// image/launch: the one launcher behind every command the machine-api-operator runs in our image. The name it
// is started by picks the compiled entry point; arguments pass through unchanged; the heap cap is set.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repo } from '../manifests/manifest-files.js';

const launcher = join(repo, 'image', 'launch');

/** The commands the operator's Deployments and DaemonSet run, and the entry point each must start. */
const commands: Record<string, (provider: string) => string> = {
  'machine-controller-manager': (p) => `machine-api-provider-${p}`,
  'machineset-controller': () => 'machineset-controller',
  'nodelink-controller': () => 'nodelink-controller',
  'machine-healthcheck': () => 'machine-healthcheck',
  'termination-handler': () => 'termination-handler',
};

describe('image/launch', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'launch-'));
    for (const name of [...Object.keys(commands), 'machine-api-operator']) symlinkSync(launcher, join(dir, name));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs a command through its link, with `echo` standing in for node so the exec line can be read. */
  function run(name: string, args: string[], env: Record<string, string> = {}) {
    const r = spawnSync(join(dir, name), args, {
      env: { PATH: process.env.PATH ?? '', MACHINE_API_NODE: 'echo', MACHINE_API_APP_DIR: '/app', ...env },
      encoding: 'utf8',
    });
    return { status: r.status, stdout: r.stdout.trim(), stderr: r.stderr.trim() };
  }

  for (const provider of ['aws', 'gcp', 'ibmcloud']) {
    for (const [name, entry] of Object.entries(commands)) {
      it(`/${name} in the ${provider} image runs cmd/${entry(provider)}.ts, compiled, with the heap cap and the operator's arguments`, () => {
        const r = run(name, ['--logtostderr=true', '--v=3', '--namespace=openshift-machine-api', 'a b'], {
          MACHINE_API_PROVIDER: provider,
        });
        expect(r.stderr).to.equal('');
        expect(r.status).to.equal(0);
        expect(r.stdout).to.equal(
          `--max-old-space-size=192 /app/dist/cmd/${entry(provider)}.js --logtostderr=true --v=3 --namespace=openshift-machine-api a b`,
        );
        expect(existsSync(join(repo, 'cmd', `${entry(provider)}.ts`)), `cmd/${entry(provider)}.ts`).to.equal(true);
      });
    }
  }

  it('takes a larger heap from MACHINE_API_MAX_OLD_SPACE_MB and refuses one that is not a number of megabytes', () => {
    expect(run('machineset-controller', [], { MACHINE_API_MAX_OLD_SPACE_MB: '512' }).stdout).to.equal(
      '--max-old-space-size=512 /app/dist/cmd/machineset-controller.js',
    );
    const bad = run('machineset-controller', [], { MACHINE_API_MAX_OLD_SPACE_MB: '512; rm -rf /' });
    expect(bad.status).to.equal(2);
    expect(bad.stderr).to.contain('MACHINE_API_MAX_OLD_SPACE_MB must be a whole number of megabytes');
    expect(bad.stdout).to.equal('');
  });

  it('refuses to guess the cloud of /machine-controller-manager when the image was built without one', () => {
    for (const provider of ['', 'azure', '../aws']) {
      const r = run('machine-controller-manager', [], provider ? { MACHINE_API_PROVIDER: provider } : {});
      expect(r.status, provider).to.equal(2);
      expect(r.stderr).to.contain('MACHINE_API_PROVIDER must be aws, gcp or ibmcloud');
    }
  });

  it('names the commands it has when started by any other name', () => {
    const r = run('machine-api-operator', []);
    expect(r.status).to.equal(2);
    expect(r.stderr).to.contain('machine-api-operator: not a command of this image');
  });

  it('is linked by the Containerfile at the image root under every command name, with the cloud from the PROVIDER build argument', () => {
    const containerfile = readFileSync(join(repo, 'Containerfile'), 'utf8');
    expect(containerfile).to.match(/^COPY image\/launch \.\/image\/launch$/m);
    expect(containerfile).to.match(/^WORKDIR \/app$/m);
    const links = /for c in ([a-z -]+); do/.exec(containerfile)?.[1]?.split(' ') ?? [];
    expect(links.sort()).to.deep.equal(Object.keys(commands).sort());
    expect(containerfile).to.match(/ln -s \/app\/image\/launch "\/\$c"/);
    expect(containerfile).to.match(/^ENV .*MACHINE_API_PROVIDER=\$\{PROVIDER\}/m);
    expect(containerfile).to.match(/^FROM registry\.access\.redhat\.com\/ubi9\/nodejs-\$\{NODE_IMAGE_TAG\}-minimal$/m);
    expect(containerfile).to.match(/^USER 65534$/m);
  });

  it('carries the OpenShift and OCI labels and installs only production dependencies, running no install script', () => {
    const containerfile = readFileSync(join(repo, 'Containerfile'), 'utf8');
    const labels = [...containerfile.matchAll(/^\s*(?:LABEL )?([a-z0-9.-]+)="[^"]+"/gm)].map((m) => m[1]);
    expect(labels).to.include.members([
      'name',
      'version',
      'io.k8s.display-name',
      'io.k8s.description',
      'io.openshift.tags',
    ]);
    expect(containerfile).to.match(/^\s*org\.opencontainers\.image\.licenses="Apache-2\.0"/m);
    expect(containerfile).to.match(/^RUN npm ci --omit=dev --ignore-scripts /m);
    expect(containerfile).to.match(/^COPY --from=runtime-deps \/src\/node_modules \.\/node_modules$/m);
  });
});
