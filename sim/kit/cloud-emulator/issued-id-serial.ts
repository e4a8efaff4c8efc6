// Resource ids an emulator issues must never repeat within its data directory, whatever world is restored.
// The world file is saved shortly after each change, so after a crash it can be older than what clients still
// remember (the API server holds providerIDs of instances the restored world never saw); a seeded RNG restarts
// its sequence on every start and would hand those ids out again. An IdSerial counts instead: the high-water
// mark is written to disk synchronously *before* any number below it is used (a block at a time, so a burst
// costs one write), and ids are built from the number through a bijection, so two numbers never give one id.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where a persisted IdSerial keeps its high-water mark, beside the emulator's world file. */
export const ISSUED_ID_SERIAL_FILE = 'issued-id-serial.json';

export class IdSerialFileError extends Error {
  override readonly name = 'IdSerialFileError';
}

export class IdSerial {
  private nextSerial: bigint;
  private reservedUpTo: bigint;

  /**
   * @param start the first number to hand out.
   * @param reserve called with a new high-water mark before any number below it is handed out; it must make
   *   the mark durable (IdSerial.inDirectory writes a file), or be a no-op for an in-memory serial.
   * @param block how many numbers one reservation covers.
   */
  constructor(
    start: bigint,
    private readonly reserve: (upTo: bigint) => void = () => undefined,
    private readonly block = 256n,
  ) {
    if (start < 0n) throw new RangeError(`IdSerial start must be >= 0, got ${start}`);
    if (block < 1n) throw new RangeError(`IdSerial block must be >= 1, got ${block}`);
    this.nextSerial = start;
    this.reservedUpTo = start;
  }

  /** A serial persisted in `dataDir`: it resumes after every number any earlier run may have handed out. */
  static inDirectory(dataDir: string, fileName = ISSUED_ID_SERIAL_FILE): IdSerial {
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, fileName);
    const start = readHighWaterMark(path);
    return new IdSerial(start, (upTo) => {
      const tmp = `${path}.tmp`;
      writeFileSync(tmp, `${JSON.stringify({ reservedUpTo: upTo.toString() })}\n`, { mode: 0o600 });
      renameSync(tmp, path);
    });
  }

  /** The next number, never handed out before by this serial or by any earlier run on the same file. */
  take(): bigint {
    if (this.nextSerial >= this.reservedUpTo) {
      const upTo = this.nextSerial + this.block;
      this.reserve(upTo);
      this.reservedUpTo = upTo;
    }
    return this.nextSerial++;
  }
}

function readHighWaterMark(path: string): bigint {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0n;
    throw err;
  }
  let mark: unknown;
  try {
    mark = (JSON.parse(text) as { reservedUpTo?: unknown }).reservedUpTo;
  } catch (err) {
    throw new IdSerialFileError(`${path}: issued-id serial is not valid JSON: ${(err as Error).message}`, {
      cause: err,
    });
  }
  // A damaged mark is an error, never a silent restart from zero (that would repeat ids).
  if (typeof mark !== 'string' || !/^\d+$/.test(mark))
    throw new IdSerialFileError(`${path}: reservedUpTo must be a decimal string, got ${JSON.stringify(mark)}`);
  return BigInt(mark);
}

/**
 * A bijection on the numbers below 2^bits (odd multiplier and xor-shifts, each invertible): distinct serials
 * give distinct results that look random, as cloud ids do.
 */
export function scrambleSerial(serial: bigint, bits: number): bigint {
  if (!Number.isInteger(bits) || bits < 8 || bits > 64)
    throw new RangeError(`bits must be an integer from 8 to 64, got ${bits}`);
  const mask = (1n << BigInt(bits)) - 1n;
  if (serial < 0n || serial > mask) throw new RangeError(`serial ${serial} does not fit in ${bits} bits`);
  const half = BigInt(Math.floor(bits / 2));
  let x = serial;
  x = (x * 0x9e3779b97f4a7c15n) & mask;
  x ^= x >> half;
  x = (x * 0xbf58476d1ce4e5b9n) & mask;
  x ^= x >> half;
  return x;
}

/** `digits` lowercase hex digits (at most 16) that are distinct for distinct serials. */
export function serialHex(serial: bigint, digits: number): string {
  if (!Number.isInteger(digits) || digits < 2 || digits > 16)
    throw new RangeError(`digits must be an integer from 2 to 16, got ${digits}`);
  return scrambleSerial(serial, digits * 4)
    .toString(16)
    .padStart(digits, '0');
}
