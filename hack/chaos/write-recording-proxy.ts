// A loopback HTTP proxy in front of the control plane for one controller replica: it forwards everything
// (watches stream through) and records each write (any method but GET) with the time it arrived and the
// status the server answered. The chaos run reads these records to tell which replica wrote what, and when:
// a replica that was paused past its lease must have no write applied once it resumes.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedWrite {
  /** Date.now() when the request reached the proxy. */
  at: number;
  method: string;
  path: string;
  /** The server's status; 0 while unanswered or when the server could not be reached. */
  status: number;
}

export class WriteRecordingProxy {
  private readonly sockets = new Set<import('node:net').Socket>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    readonly writes: RecordedWrite[],
  ) {
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
  }

  /** `upstream`: the control plane's http URL. */
  static async start(upstream: string): Promise<WriteRecordingProxy> {
    const target = new URL(upstream);
    const writes: RecordedWrite[] = [];
    const agent = new http.Agent({ keepAlive: true });
    const server = http.createServer((req, res) => {
      const write: RecordedWrite | undefined =
        req.method && req.method !== 'GET'
          ? { at: Date.now(), method: req.method, path: (req.url ?? '').split('?')[0] ?? '', status: 0 }
          : undefined;
      if (write) writes.push(write);
      const out = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
        (up) => {
          if (write) write.status = up.statusCode ?? 0;
          res.writeHead(up.statusCode ?? 502, up.headers);
          // A control plane killed mid-reply (a watch, say) must cut the client's reply too; piping alone would
          // leave it open and silent forever, and the controller behind it waiting on a dead watch.
          up.on('close', () => {
            if (!up.complete) res.destroy();
          });
          up.on('error', () => res.destroy());
          up.pipe(res);
        },
      );
      out.on('error', () => {
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      res.on('close', () => out.destroy());
      req.pipe(out);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    server.on('close', () => agent.destroy());
    return new WriteRecordingProxy(server, `http://127.0.0.1:${port}`, writes);
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
