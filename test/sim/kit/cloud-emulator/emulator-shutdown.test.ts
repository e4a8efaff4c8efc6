import { expect } from 'chai';
import { createServer } from 'node:http';
import { emulatorStopper, listenOnLoopback } from '../../../../sim/kit/index.js';

describe('emulatorStopper', () => {
  it('aborts waiting calls, closes the state, closes the server, then saves — once', async () => {
    const server = createServer((_req, res) => res.end());
    await listenOnLoopback(server);
    const order: string[] = [];
    const shutdown = new AbortController();
    shutdown.signal.addEventListener('abort', () => order.push('abort'));
    server.on('close', () => order.push('server closed'));
    const stop = emulatorStopper({
      server,
      shutdown,
      state: { close: () => order.push('state closed') },
      snapshot: { saveNow: () => order.push(`saved (listening=${server.listening})`) },
    });
    await stop();
    await stop();
    expect(order).to.deep.equal(['abort', 'state closed', 'server closed', 'saved (listening=false)']);
  });

  it('works without a shutdown signal or a snapshot', async () => {
    const server = createServer();
    await listenOnLoopback(server);
    let closed = 0;
    await emulatorStopper({ server, state: { close: () => closed++ } })();
    expect(closed).to.equal(1);
    expect(server.listening).to.equal(false);
  });
});
