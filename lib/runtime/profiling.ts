// The profiling endpoints of --enable-pprof, at the paths of Go's net/http/pprof, in V8's formats, which
// Chrome DevTools (Performance and Memory panels), VS Code and speedscope open:
//   GET /debug/pprof/profile?seconds=N  CPU profile of this process over N seconds (default 30): .cpuprofile
//   GET /debug/pprof/heap               sampled heap profile, like Go's: the live objects among allocations
//                                       sampled every 512 KiB since the server started: .heapprofile
//   GET /debug/pprof/heapsnapshot       every object on the heap: .heapsnapshot (pauses the process while it
//                                       is written, and may need as much memory again as the heap holds)
//   GET /debug/pprof/                   this list
// Taken through node:inspector and node:v8 in this process: no debugger port is opened. One CPU profile runs
// at a time, as in Go; a second request meanwhile gets a 500 saying so.
import { Session } from 'node:inspector/promises';
import { getHeapSnapshot } from 'node:v8';
import type { Clock } from '../base/clock.js';
import type { RouteResponse } from './probe-server.js';

/** net/http/pprof's default when ?seconds is missing or not a positive integer. */
export const DEFAULT_PROFILE_SECONDS = 30;
/** Go's runtime.MemProfileRate: one allocation sampled per 512 KiB allocated. */
const HEAP_SAMPLING_INTERVAL_BYTES = 512 * 1024;

const TEXT = 'text/plain; charset=utf-8';

type ProfileRoute = (req: unknown, at: { query: URLSearchParams }) => Promise<RouteResponse>;

export class Profiler {
  private cpuBusy = false;
  private sampling: Session | undefined;

  constructor(private readonly clock: Clock) {}

  /** Starts the heap sampling /debug/pprof/heap reports; stop() ends it. */
  async start(): Promise<void> {
    const session = new Session();
    session.connect();
    await session.post('HeapProfiler.startSampling', { samplingInterval: HEAP_SAMPLING_INTERVAL_BYTES });
    this.sampling = session;
  }

  stop(): void {
    this.sampling?.disconnect();
    this.sampling = undefined;
  }

  /** Routes for a ProbeServer; `signal` (the server closing) cuts a running CPU profile short. */
  routes(signal: AbortSignal): Record<string, ProfileRoute> {
    return {
      '/debug/pprof/': () => Promise.resolve(index()),
      '/debug/pprof/profile': (_req, at) => this.serveCpuProfile(at.query, signal),
      '/debug/pprof/heap': async () =>
        attachment(JSON.stringify(await this.heapProfile()), 'application/json', 'heap.heapprofile'),
      '/debug/pprof/heapsnapshot': () =>
        Promise.resolve(attachment(getHeapSnapshot(), 'application/json', 'heap.heapsnapshot')),
    };
  }

  /** The .cpuprofile of this process over `ms` (or until `signal` aborts). */
  async cpuProfile(ms: number, signal?: AbortSignal): Promise<unknown> {
    const session = new Session();
    session.connect();
    try {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      await this.clock.sleep(ms, signal).catch(() => undefined);
      return (await session.post('Profiler.stop')).profile;
    } finally {
      session.disconnect();
    }
  }

  /** The .heapprofile of the sampling start() began. */
  async heapProfile(): Promise<unknown> {
    if (!this.sampling) throw new Error('heap sampling has not been started');
    return (await this.sampling.post('HeapProfiler.getSamplingProfile')).profile;
  }

  private async serveCpuProfile(query: URLSearchParams, signal: AbortSignal): Promise<RouteResponse> {
    if (this.cpuBusy)
      return { status: 500, contentType: TEXT, body: 'Could not enable CPU profiling: cpu profiling already in use\n' };
    this.cpuBusy = true;
    try {
      const profile = await this.cpuProfile(profileSeconds(query.get('seconds')) * 1000, signal);
      return attachment(JSON.stringify(profile), 'application/json', 'profile.cpuprofile');
    } finally {
      this.cpuBusy = false;
    }
  }
}

/** ?seconds as net/http/pprof reads it: a positive integer, else the default. */
export function profileSeconds(value: string | null): number {
  const n = Number(value);
  return value !== null && value !== '' && Number.isInteger(n) && n > 0 ? n : DEFAULT_PROFILE_SECONDS;
}

function attachment(body: RouteResponse['body'], contentType: string, filename: string): RouteResponse {
  return { status: 200, contentType, body, headers: { 'Content-Disposition': `attachment; filename="${filename}"` } };
}

function index(): RouteResponse {
  return {
    status: 200,
    contentType: TEXT,
    body:
      'profile: CPU profile (V8 .cpuprofile); ?seconds=N, default 30\n' +
      'heap: sampled heap profile (V8 .heapprofile)\n' +
      'heapsnapshot: heap snapshot (V8 .heapsnapshot; pauses the process while written)\n',
  };
}
