import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { startLocalEnvironment } from '/work/main/cmd/local/environment.js';
import { Machines } from '/work/main/lib/index.js';
const dir = mkdtempSync(join(tmpdir(), 'ibm-local-'));
const env = await startLocalEnvironment({ provider: 'ibmcloud', stateDir: dir, bootDelayMs: 200 });
console.log(readFileSync(env.endpointsPath, 'utf8').slice(0, 400));
const end = Date.now() + 30000;
for (;;) {
  const ms = (await env.client.list(Machines, { namespace: 'openshift-machine-api' })).items;
  const phases = ms.map((m) => `${m.metadata.name}:${m.status?.phase}`);
  if (ms.length === 3 && ms.every((m) => m.status?.phase === 'Running')) { console.log('OK', phases); break; }
  if (Date.now() > end) { console.log('TIMEOUT', phases, JSON.stringify(ms[0]?.status?.errorMessage)); break; }
  await new Promise((r) => setTimeout(r, 300));
}
await env.stop();
console.log(readFileSync(join(dir, 'controllers.log'), 'utf8').split('\n').filter((l) => /error|warn/i.test(l)).slice(0, 5).join('\n'));
