import { expect } from 'chai';
import { createServer, type Server } from 'node:net';
import { choosePort, freeLoopbackPorts, loopbackPortIsFree } from '../../../cmd/local/preferred-port.js';

function listen(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}

describe('machine-api-local port reuse', () => {
  it('uses an explicit port as given, else the previous port when free, else any free port', async () => {
    expect(await choosePort(6443, 40000, async () => false)).to.equal(6443);
    expect(await choosePort(0, 40000, async () => true)).to.equal(0);
    expect(await choosePort(undefined, 40000, async () => true)).to.equal(40000);
    expect(await choosePort(undefined, 40000, async () => false)).to.equal(0);
    expect(await choosePort(undefined, undefined, async () => true)).to.equal(0);
  });

  it('sees a port another program holds as taken, and a released one as free', async () => {
    const { server, port } = await listen();
    expect(await loopbackPortIsFree(port)).to.equal(false);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(await loopbackPortIsFree(port)).to.equal(true);
  });

  it('hands out a batch of distinct ports, each free again once the batch is returned', async () => {
    const ports = await freeLoopbackPorts(40);
    expect(new Set(ports).size).to.equal(40);
    for (const port of ports) expect(port).to.be.greaterThan(0);
    for (const port of ports.slice(0, 5)) expect(await loopbackPortIsFree(port)).to.equal(true);
  });
});
