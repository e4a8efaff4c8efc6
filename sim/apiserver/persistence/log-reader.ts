// Reading the write-ahead log back on start-up. Each line is one committed change. A crash can leave
// the end of a segment torn (a partial line, or a batch whose pages reached the disk out of order); none
// of that was ever acknowledged, because replies wait for the batch's fdatasync. So a segment is read up
// to its first line that is not a complete, valid record, and the rest of that segment is ignored.
import { readFileSync } from 'node:fs';
import type { KubeObject } from '../../../lib/apis/meta.js';
import type { LoggedChange } from '../storage/store.js';

export interface LogRecord extends LoggedChange {
  rv: number;
}

export interface SegmentContents {
  records: LogRecord[];
  /** Bytes after the last valid record that were ignored (0 for a segment closed cleanly). */
  ignoredBytes: number;
}

/** One log line: `{"rv":N,"op":"put"|"delete","typeKey":"...","object":{...}}` and a newline. */
export function encodeRecord(rv: number, op: LoggedChange['op'], typeKey: string, object: KubeObject): string {
  return `{"rv":${rv},"op":"${op}","typeKey":${JSON.stringify(typeKey)},"object":${JSON.stringify(object)}}\n`;
}

function decodeRecord(line: string): LogRecord | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  const r = v as Partial<LogRecord> | null;
  if (!r || typeof r !== 'object') return undefined;
  if (
    typeof r.rv !== 'number' ||
    !Number.isSafeInteger(r.rv) ||
    (r.op !== 'put' && r.op !== 'delete') ||
    typeof r.typeKey !== 'string'
  )
    return undefined;
  const o = r.object;
  if (
    !o ||
    typeof o !== 'object' ||
    !o.metadata ||
    typeof o.metadata !== 'object' ||
    o.metadata.resourceVersion !== String(r.rv)
  )
    return undefined;
  return { rv: r.rv, op: r.op, typeKey: r.typeKey, object: o };
}

/** The valid records of a segment's text, in order, and how much of its tail was ignored. */
export function parseSegment(text: string): SegmentContents {
  const records: LogRecord[] = [];
  let offset = 0;
  let lastRv = 0;
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset);
    if (nl < 0) break; // a line without its newline was cut short
    const record = decodeRecord(text.slice(offset, nl));
    if (!record || record.rv <= lastRv) break;
    records.push(record);
    lastRv = record.rv;
    offset = nl + 1;
  }
  return { records, ignoredBytes: Buffer.byteLength(text.slice(offset)) };
}

export function readSegment(path: string): SegmentContents {
  return parseSegment(readFileSync(path, 'utf8'));
}
