// npm start runs each provider binary through the binary's own preparation, so what the binary sets up from its
// environment (the cluster proxy, trusted CAs) is set up in the local environment too; a copy of those steps in
// npm start once left the proxy and CA bundle out.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { startLocalEnvironment } from '../../../cmd/local/environment.js';

const PROXY = 'http://proxy.test.invalid:3128';

for (const provider of ['aws', 'gcp', 'ibmcloud']) {
  describe(`npm start --provider ${provider}: the provider binary's preparation`, function () {
    this.timeout(60_000);

    it("takes the proxy from the environment, as the binary's main() does", async () => {
      const dir = mkdtempSync(join(tmpdir(), `mapi-prepare-${provider}-`));
      const log = new PassThrough();
      let text = '';
      log.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      const env = await startLocalEnvironment({
        provider,
        stateDir: dir,
        port: 0,
        samples: false,
        logStream: log,
        env: { ...process.env, HTTPS_PROXY: PROXY, NO_PROXY: '127.0.0.1,localhost' },
      });
      try {
        const starting = text
          .split('\n')
          .find((l) => l.includes('"starting"') && l.includes(`machine-api-provider-${provider}`));
        expect(starting, 'the provider binary logs its start').to.be.a('string');
        expect(starting).to.include('proxy.test.invalid:3128');
      } finally {
        await env.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
