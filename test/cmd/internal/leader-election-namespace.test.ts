// The leader-election Lease's namespace, decided as controller-runtime decides it: the flag, else the pod's
// service-account namespace; out of a cluster with neither, a start-up error naming the flag (no guess).
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  leaderElectionNamespace,
  LeaderElectionNamespaceError,
} from '../../../cmd/internal/leader-election-namespace.js';

describe('leaderElectionNamespace', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'le-ns-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('takes --leader-elect-resource-namespace when given, without reading the service-account file', () => {
    expect(leaderElectionNamespace('machines', join(dir, 'absent'))).to.equal('machines');
  });

  it("in a cluster, takes the service account's namespace from the file the kubelet mounts", () => {
    const file = join(dir, 'namespace');
    writeFileSync(file, 'openshift-machine-api\n');
    expect(leaderElectionNamespace('', file)).to.equal('openshift-machine-api');
  });

  it('out of a cluster without the flag, refuses with a typed error naming --leader-elect-resource-namespace and the missing file', () => {
    const file = join(dir, 'absent');
    const err = catchError(() => leaderElectionNamespace('', file));
    expect(err).to.be.instanceOf(LeaderElectionNamespaceError);
    expect(err.message).to.equal(
      `unable to find leader election namespace: not running in-cluster (${file} does not exist), please specify --leader-elect-resource-namespace (or run with --leader-elect=false)`,
    );
  });

  it('treats an empty namespace file as no namespace rather than a Lease in ""', () => {
    const file = join(dir, 'namespace');
    writeFileSync(file, '  \n');
    expect(catchError(() => leaderElectionNamespace('', file)).message)
      .to.contain(`${file} is empty`)
      .and.contain('--leader-elect-resource-namespace');
  });
});

function catchError(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('no error thrown');
}
