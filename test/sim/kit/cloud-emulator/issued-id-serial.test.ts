import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  IdSerial,
  IdSerialFileError,
  ISSUED_ID_SERIAL_FILE,
  scrambleSerial,
  serialHex,
} from '../../../../sim/kit/cloud-emulator/index.js';

describe('IdSerial: numbers for emulator resource ids that never repeat within a data directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'id-serial-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('resumes after every number an earlier run could have handed out, even one that stopped mid-block', () => {
    const first = IdSerial.inDirectory(dir);
    const handedOut = [first.take(), first.take(), first.take()];
    // No stop or save: the earlier run just ends (a crash); the reserved mark is already on disk.
    const second = IdSerial.inDirectory(dir);
    const next = second.take();
    expect(handedOut).to.not.include(next);
    expect(next > handedOut.at(-1)!).to.equal(true);
  });

  it('reserves the high-water mark before handing out a number below it, one write per block', () => {
    const marks: bigint[] = [];
    const serial = new IdSerial(10n, (upTo) => marks.push(upTo), 4n);
    const taken = Array.from({ length: 5 }, () => serial.take());
    expect(taken).to.deep.equal([10n, 11n, 12n, 13n, 14n]);
    expect(marks).to.deep.equal([14n, 18n]);
  });

  it('refuses a damaged serial file instead of starting again from zero', () => {
    writeFileSync(join(dir, ISSUED_ID_SERIAL_FILE), '{"reservedUpTo": -3}');
    expect(() => IdSerial.inDirectory(dir)).to.throw(IdSerialFileError, 'reservedUpTo must be a decimal string');
  });
});

describe('serialHex / scrambleSerial: distinct serials give distinct ids', () => {
  it('is a bijection on a small space (every 8-bit serial maps to a different value)', () => {
    const seen = new Set(Array.from({ length: 256 }, (_, i) => scrambleSerial(BigInt(i), 8)));
    expect(seen.size).to.equal(256);
  });

  it('formats to exactly the requested number of hex digits, distinct for consecutive serials', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => serialHex(BigInt(i), 16));
    expect(new Set(ids).size).to.equal(1000);
    for (const id of ids) expect(id).to.match(/^[0-9a-f]{16}$/);
  });

  it('rejects a serial that does not fit the requested width', () => {
    expect(() => scrambleSerial(256n, 8)).to.throw(RangeError, 'does not fit in 8 bits');
  });
});
