// What a state directory was made for, kept in the directory itself: the provider (a directory holds one
// cloud's Machines and one emulator's instances; mixing clouds leaves Machines no emulator answers for) and
// the ports of the last run (reused when free, so an open `kubectl get -w` can reconnect and cloud CLI
// endpoints stay the same across restarts).
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const STATE_DIR_RECORD_FILE = 'state-dir.json';

export interface StateDirPorts {
  apiServer?: number;
  cloud?: number;
  /** The emulator's admin endpoint. */
  admin?: number;
}

export interface StateDirRecord {
  provider: string;
  ports?: StateDirPorts;
}

export class StateDirRecordError extends Error {
  override readonly name = 'StateDirRecordError';
}

export class StateDirProviderMismatchError extends Error {
  override readonly name = 'StateDirProviderMismatchError';
  constructor(
    readonly stateDir: string,
    readonly recordedProvider: string,
    readonly requestedProvider: string,
  ) {
    super(
      `state directory ${stateDir} was made for provider ${recordedProvider}, not ${requestedProvider}: ` +
        `run with --provider ${recordedProvider}, or give ${requestedProvider} its own directory with --state-dir ${stateDir}-${requestedProvider}`,
    );
  }
}

function port(path: string, field: string, v: unknown): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 65535) {
    throw new StateDirRecordError(
      `${path}: ${field} must be an integer port from 1 to 65535, got ${JSON.stringify(v)}`,
    );
  }
  return v;
}

/**
 * The directory's record, or undefined for a new directory. A directory from before records existed is
 * recognised by its emulator folder (`<provider>-emulator/`), one of `knownProviders`.
 */
export function readStateDirRecord(stateDir: string, knownProviders: readonly string[]): StateDirRecord | undefined {
  const path = join(stateDir, STATE_DIR_RECORD_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const found = knownProviders.filter((p) => existsSync(join(stateDir, `${p}-emulator`)));
    return found.length === 1 ? { provider: found[0]! } : undefined;
  }
  let raw: { provider?: unknown; ports?: { apiServer?: unknown; cloud?: unknown; admin?: unknown } };
  try {
    raw = JSON.parse(text) as typeof raw;
  } catch (err) {
    throw new StateDirRecordError(`${path}: not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (typeof raw.provider !== 'string' || raw.provider === '') {
    throw new StateDirRecordError(`${path}: provider must be a non-empty string, got ${JSON.stringify(raw.provider)}`);
  }
  const ports = raw.ports ?? {};
  return {
    provider: raw.provider,
    ports: {
      apiServer: port(path, 'ports.apiServer', ports.apiServer),
      cloud: port(path, 'ports.cloud', ports.cloud),
      admin: port(path, 'ports.admin', ports.admin),
    },
  };
}

/** Throws StateDirProviderMismatchError when the directory was made for another provider. */
export function checkStateDirProvider(stateDir: string, record: StateDirRecord | undefined, provider: string): void {
  if (record && record.provider !== provider)
    throw new StateDirProviderMismatchError(stateDir, record.provider, provider);
}

export function writeStateDirRecord(stateDir: string, record: StateDirRecord): void {
  writeFileAtomically(join(stateDir, STATE_DIR_RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
}

/** Writes a file of the state directory (mode 0600) so that a reader sees the old content or the new, never half. */
export function writeFileAtomically(path: string, text: string): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, path);
}
