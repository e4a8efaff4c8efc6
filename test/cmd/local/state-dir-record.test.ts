import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkStateDirProvider,
  readStateDirRecord,
  STATE_DIR_RECORD_FILE,
  StateDirProviderMismatchError,
  StateDirRecordError,
  writeStateDirRecord,
} from '../../../cmd/local/state-dir-record.js';

const PROVIDERS = ['aws', 'gcp', 'ibmcloud'];

describe('machine-api-local state directory record (provider and ports)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'state-record-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('has no record for a new directory, and reads back what was written', () => {
    expect(readStateDirRecord(dir, PROVIDERS)).to.equal(undefined);
    writeStateDirRecord(dir, { provider: 'gcp', ports: { apiServer: 40001, cloud: 40002, admin: 40003 } });
    expect(readStateDirRecord(dir, PROVIDERS)).to.deep.equal({
      provider: 'gcp',
      ports: { apiServer: 40001, cloud: 40002, admin: 40003 },
    });
  });

  it('recognises a directory from before records existed by its emulator folder', () => {
    mkdirSync(join(dir, 'aws-emulator'));
    expect(readStateDirRecord(dir, PROVIDERS)).to.deep.equal({ provider: 'aws' });
  });

  it('refuses another provider, naming the recorded one and the flags to choose', () => {
    expect(() => checkStateDirProvider('.local', { provider: 'aws' }, 'gcp')).to.throw(
      StateDirProviderMismatchError,
      'state directory .local was made for provider aws, not gcp: run with --provider aws, or give gcp its own directory with --state-dir .local-gcp',
    );
    expect(() => checkStateDirProvider('.local', { provider: 'aws' }, 'aws')).to.not.throw();
    expect(() => checkStateDirProvider('.local', undefined, 'gcp')).to.not.throw();
  });

  it('rejects a damaged record naming the file and the field', () => {
    writeFileSync(join(dir, STATE_DIR_RECORD_FILE), '{"provider": "aws", "ports": {"cloud": 99999}}');
    expect(() => readStateDirRecord(dir, PROVIDERS)).to.throw(
      StateDirRecordError,
      /state-dir\.json: ports\.cloud must be an integer port from 1 to 65535, got 99999/,
    );
    writeFileSync(join(dir, STATE_DIR_RECORD_FILE), '{}');
    expect(() => readStateDirRecord(dir, PROVIDERS)).to.throw(
      StateDirRecordError,
      /provider must be a non-empty string/,
    );
  });
});
