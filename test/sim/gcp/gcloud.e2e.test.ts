import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { JWT } from 'google-auth-library';
import { EMULATOR_SERVICE_ACCOUNT_KEY, startGceEmulator, type GceEmulator } from '../../../sim/gcp/index.js';
import { clientsFor, closeClients, insert, PROJECT, waitDone, ZONE } from './fixtures.js';

const run = promisify(execFile);

function findGcloud(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const p = join(dir, 'gcloud');
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

/**
 * An isolated gcloud configuration aimed at the emulator: the same properties `gcloud config set` writes
 * (api_endpoint_overrides/compute, auth/disable_credentials, core/project), in a private CLOUDSDK_CONFIG.
 */
function gcloudConfig(dir: string, emu: GceEmulator): void {
  mkdirSync(join(dir, 'configurations'), { recursive: true });
  writeFileSync(join(dir, 'active_config'), 'default');
  writeFileSync(
    join(dir, 'configurations', 'config_default'),
    [
      '[core]',
      `project = ${PROJECT}`,
      'disable_usage_reporting = true',
      'disable_prompts = true',
      '[auth]',
      'disable_credentials = true',
      '[api_endpoint_overrides]',
      `compute = ${emu.apiRoot}`,
      '[component_manager]',
      'disable_update_check = true',
      '',
    ].join('\n'),
  );
}

const gcloud = findGcloud();
// Without gcloud there is nothing to drive the emulator with; the suite is reported as pending, with the reason.
const suite = gcloud ? describe : describe.skip;

suite(`GCE emulator: gcloud compute against it${gcloud ? '' : ' (skipped: gcloud is not on PATH)'}`, function () {
  this.timeout(120_000);
  let emu: GceEmulator;
  let dir: string;

  before(async () => {
    emu = await startGceEmulator({ bootDelayMs: 20 });
    dir = mkdtempSync(join(tmpdir(), 'gcloud-cfg-'));
    gcloudConfig(dir, emu);
    const c = clientsFor(emu);
    await waitDone(c, await insert(c, 'gcloud-foo', { labels: { role: 'worker' } }));
    await insert(c, 'gcloud-bar', {}, undefined, 'us-central1-b');
    await closeClients(c);
  });
  after(async () => {
    await emu?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const gc = async (...args: string[]) => {
    const { stdout } = await run(gcloud as string, [...args, '--format=json'], {
      env: { ...process.env, CLOUDSDK_CONFIG: dir },
      timeout: 90_000,
    });
    return (stdout.trim() === '' ? [] : JSON.parse(stdout)) as Record<string, unknown> | Record<string, unknown>[];
  };

  it('lists the instances of every zone (aggregatedList) through a name filter', async () => {
    const listed = (await gc('compute', 'instances', 'list', '--filter=name~foo')) as {
      name: string;
      zone: string;
      status: string;
    }[];
    expect(listed.map((i) => i.name)).to.deep.equal(['gcloud-foo']);
    expect(listed[0]?.zone).to.match(/zones\/us-central1-a$/);
    expect(emu.knobs.counts('instances.aggregatedList').total).to.be.greaterThan(0);
  });

  it('describes one instance with its status, labels and network interface', async () => {
    const inst = (await gc('compute', 'instances', 'describe', 'gcloud-foo', `--zone=${ZONE}`)) as {
      name: string;
      status: string;
      labels: Record<string, string>;
      networkInterfaces: { networkIP: string }[];
    };
    expect(inst.name).to.equal('gcloud-foo');
    expect(inst.status).to.equal('RUNNING');
    expect(inst.labels).to.deep.equal({ role: 'worker' });
    expect(inst.networkInterfaces[0]?.networkIP).to.match(/^10\./);
  });

  it('creates and deletes several instances in one command (a /batch/compute/v1 multipart request)', async () => {
    emu.knobs.resetCounters();
    const names = ['gcloud-batch-1', 'gcloud-batch-2', 'gcloud-batch-3'];
    const created = (await gc(
      'compute',
      'instances',
      'create',
      ...names,
      `--zone=${ZONE}`,
      '--machine-type=n2-standard-4',
      '--image-family=rhcos-9-6-x86-64',
      '--image-project=rhcos-cloud',
    )) as { name: string; machineType: string }[];
    expect(created.map((i) => i.name).sort()).to.deep.equal(names);
    expect(created[0]?.machineType).to.match(/machineTypes\/n2-standard-4$/);
    // Each batched call went through the same routes and counters as a single one.
    expect(emu.knobs.counts('instances.insert').total).to.equal(3);
    for (const n of names) expect(emu.instance(n, { zone: ZONE }), n).to.not.equal(undefined);

    await gc('compute', 'instances', 'delete', 'gcloud-batch-1', 'gcloud-batch-2', `--zone=${ZONE}`, '--quiet');
    expect(emu.knobs.counts('instances.delete').total).to.equal(2);
    emu.advance();
    expect(emu.instance('gcloud-batch-1', { zone: ZONE })).to.equal(undefined);
    expect(emu.instance('gcloud-batch-2', { zone: ZONE })).to.equal(undefined);
    expect(emu.instance('gcloud-batch-3', { zone: ZONE })).to.not.equal(undefined);
  });
});

suite(
  `GCE emulator that checks credentials: gcloud signed in as README shows${gcloud ? '' : ' (skipped: gcloud is not on PATH)'}`,
  function () {
    this.timeout(120_000);
    let emu: GceEmulator;
    let dir: string;
    // Anything gcloud would send past loopback (Google's token or Resource Manager endpoints) fails at once.
    const env = () => ({
      ...process.env,
      CLOUDSDK_CONFIG: dir,
      CLOUDSDK_CORE_PROJECT: PROJECT,
      HTTPS_PROXY: 'http://127.0.0.1:9',
      HTTP_PROXY: 'http://127.0.0.1:9',
      NO_PROXY: '127.0.0.1,localhost',
    });
    const run2 = (...args: string[]) => run(gcloud as string, args, { env: env(), timeout: 90_000 });

    before(async () => {
      emu = await startGceEmulator({ requireAuth: true, bootDelayMs: 20 });
      dir = mkdtempSync(join(tmpdir(), 'gcloud-auth-'));
      writeFileSync(join(dir, 'key.json'), JSON.stringify(EMULATOR_SERVICE_ACCOUNT_KEY));
      await run2('config', 'set', 'core/disable_usage_reporting', 'true');
      await run2('config', 'set', 'component_manager/disable_update_check', 'true');
      await run2('config', 'set', 'api_endpoint_overrides/compute', emu.apiRoot);
      const key = EMULATOR_SERVICE_ACCOUNT_KEY;
      const c = clientsFor(emu, new JWT({ email: key.client_email, key: key.private_key, keyId: key.private_key_id }));
      await waitDone(c, await insert(c, 'gcloud-auth-1'));
      await closeClients(c);
    });
    after(async () => {
      await emu?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('is refused (401) without credentials, and lists instances once signed in with the sample key at the emulator’s /token', async () => {
      await run2('config', 'set', 'auth/disable_credentials', 'true');
      // gcloud reports a list's failed requests on stderr (with or without a failing exit status).
      const refused = await run2('compute', 'instances', 'list', '--format=json').then(
        (r) => `${r.stdout}${r.stderr}`,
        (e: Error & { stderr?: string }) => e.stderr ?? e.message,
      );
      expect(refused).to.contain('Request had invalid authentication credentials');
      await run2('config', 'unset', 'auth/disable_credentials');
      await run2('config', 'set', 'auth/token_host', `${emu.endpoint}/token`);
      await run2('auth', 'activate-service-account', `--key-file=${join(dir, 'key.json')}`);
      const { stdout } = await run2('compute', 'instances', 'list', '--format=json');
      expect((JSON.parse(stdout) as { name: string }[]).map((i) => i.name)).to.deep.equal(['gcloud-auth-1']);
      expect(emu.tokens.calls.jwtBearer, 'the token came from the emulator').to.be.greaterThan(0);
    });
  },
);
