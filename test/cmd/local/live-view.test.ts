import { expect } from 'chai';
import type { ClusterSnapshot, MachineRow } from '../../../cmd/local/cluster-snapshot.js';
import { fit, formatAge, renderLiveView, table } from '../../../cmd/local/live-view.js';

const now = Date.parse('2026-11-22T12:00:00Z');
const header = {
  provider: 'aws',
  apiServer: 'https://127.0.0.1:43327',
  hint: 'KUBECONFIG=.local/kubeconfig kubectl get machines -A',
  footer: 'Ctrl-C stops everything; state and logs are kept in .local/',
};

function machine(i: number, phase = 'Running'): MachineRow {
  return {
    namespace: 'openshift-machine-api',
    name: `worker-us-east-1a-${String(i).padStart(5, 'x')}`,
    phase,
    node: phase === 'Running' ? `ip-10-0-16-${i}.ec2.internal` : '',
    providerID: phase === 'Provisioning' ? '' : `aws:///us-east-1a/i-0f0d16986b24f980${i}`,
    createdMs: now - 65_000,
    deleting: false,
  };
}

function snapshot(machines: number, events = 3): ClusterSnapshot {
  return {
    machineSets: [
      {
        namespace: 'openshift-machine-api',
        name: 'worker-us-east-1a',
        desired: machines,
        current: machines,
        ready: machines - 1,
        upToDate: 'RollingUpdate',
      },
    ],
    machines: Array.from({ length: machines }, (_, i) => machine(i + 1, i === 0 ? 'Provisioning' : 'Running')),
    events: Array.from({ length: events }, (_, i) => ({
      timeMs: now - i * 1000,
      type: i === 0 ? 'Warning' : 'Normal',
      object: `Machine/worker-us-east-1a-${i}`,
      reason: i === 0 ? 'FailedCreate' : 'Create',
      message: `Created Machine worker-us-east-1a-${i} with a message long enough to be cut at the edge of the screen`,
      count: i === 1 ? 3 : 1,
    })),
  };
}

describe('the live view of machine-api-local', () => {
  describe('formatAge', () => {
    it('reads like kubectl: seconds to 2 minutes, minutes and seconds to 10, then minutes, hours, days', () => {
      expect([0, 45_000, 119_000, 192_000, 11 * 60_000, 5 * 3_600_000, 3 * 86_400_000].map(formatAge)).to.deep.equal([
        '0s',
        '45s',
        '119s',
        '3m12s',
        '11m',
        '5h',
        '3d',
      ]);
      expect(formatAge(-5000)).to.equal('0s');
    });
  });

  describe('fit', () => {
    it('cuts on the right, or keeps the end cutting at a path separator when the last segment fits', () => {
      expect(fit('abcdef', 4)).to.equal('abc…');
      expect(fit('abc', 4)).to.equal('abc');
      expect(fit('aws:///us-east-1a/i-0123456789abcdef0', 22, 'end')).to.equal('…/i-0123456789abcdef0');
      expect(fit('aws:///us-east-1a/i-0123456789abcdef0', 10, 'end')).to.equal('…89abcdef0');
      expect(fit('x', 0)).to.equal('');
    });

    it('keeps both ends when asked, the end getting more room (generated names differ in their suffix)', () => {
      expect(fit('worker-us-central1-a-x7k2p', 12, 'ends')).to.equal('wor…-a-x7k2p');
      expect(fit('worker-us-central1-a-x7k2p', 4, 'ends')).to.equal('…k2p');
    });
  });

  describe('table', () => {
    it('aligns columns and shrinks the shrinkable ones in order until the rows fit', () => {
      const lines = table(
        [
          { title: 'NAME', values: ['a-long-name', 'b'], min: 4 },
          { title: 'ID', values: ['aws:///zone/i-1234567890', '-'], min: 8, keep: 'end', shrinkOrder: 0 },
          { title: 'N', values: ['1', '22'], align: 'right', min: 1 },
        ],
        30,
      );
      expect(lines).to.deep.equal([
        'NAME         ID              N',
        'a-long-name  …i-1234567890   1',
        'b            -              22',
      ]);
      for (const l of lines) expect(l.length).to.be.at.most(30);
    });
  });

  describe('renderLiveView', () => {
    it('fits an 80×24 terminal exactly: 24 lines, none wider than 80', () => {
      for (const n of [0, 1, 3, 5, 12, 40]) {
        const lines = renderLiveView(snapshot(n, 20), { width: 80, height: 24, nowMs: now, header });
        expect(lines, `${n} machines`).to.have.length(24);
        for (const l of lines) expect(l.length, l).to.be.at.most(80);
      }
    });

    it('shows the MachineSet counts and rollout state, and each machine with phase, node, instance id and age', () => {
      const lines = renderLiveView(snapshot(3), { width: 80, height: 24, nowMs: now, header });
      expect(lines[0]).to.match(/^machine-api-local · aws · https:\/\/127\.0\.0\.1:43327 · 2\/3 Running\s+12:00:00$/);
      expect(lines[1]).to.equal(header.hint);
      expect(lines.find((l) => l.startsWith('MACHINESET'))).to.match(
        /MACHINESET\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE/,
      );
      expect(lines.find((l) => l.startsWith('worker-us-east-1a '))).to.match(
        /^worker-us-east-1a\s+3\s+3\s+2\s+RollingUpdate$/,
      );
      expect(lines.find((l) => l.startsWith('MACHINE '))).to.match(/MACHINE\s+PHASE\s+NODE\s+PROVIDERID\s+AGE/);
      const row = lines.find((l) => l.startsWith('worker-us-east-1a-xxxx2'))!;
      expect(row).to.match(/Running\s+ip-10-0-16-2\S*\s+\S*i-0f0d16986b24f9802\s+65s$/);
      expect(lines.find((l) => l.startsWith('worker-us-east-1a-xxxx1'))).to.match(/Provisioning\s+-\s+-\s+65s$/);
      expect(lines.at(-1)).to.equal(header.footer);
    });

    it('keeps full node names and provider IDs when the terminal is wide enough', () => {
      const lines = renderLiveView(snapshot(3), { width: 160, height: 40, nowMs: now, header });
      expect(lines.join('\n'))
        .to.contain('ip-10-0-16-2.ec2.internal')
        .and.to.contain('aws:///us-east-1a/i-0f0d16986b24f9802');
    });

    it('shows the distinguishing end of long node names on an 80-column terminal', () => {
      const gcp = (suffix: string): MachineRow => ({
        namespace: 'openshift-machine-api',
        name: `worker-us-central1-a-${suffix}`,
        phase: 'Running',
        node: `worker-us-central1-a-${suffix}.c.openshift-local.internal`,
        providerID: `gce://openshift-local/us-central1-a/worker-us-central1-a-${suffix}`,
        createdMs: now - 65_000,
        deleting: false,
      });
      const suffixes = ['x7k2p', 'q9m4d', 'b3v8n'];
      const lines = renderLiveView(
        { machineSets: [], machines: suffixes.map(gcp), events: [] },
        { width: 80, height: 24, nowMs: now, header },
      );
      for (const s of suffixes) {
        const row = lines.find((l) => l.startsWith(`worker-us-central1-a-${s}`))!;
        expect(row.length).to.be.at.most(80);
        const nodeCell = row
          .slice(row.indexOf('Running') + 'Running'.length)
          .trim()
          .split(/\s+/)[0]!;
        expect(nodeCell, row).to.contain('…');
        expect(nodeCell.endsWith(s), row).to.equal(true);
      }
    });

    it('shows the latest events newest first, marks warnings and repeated counts', () => {
      const lines = renderLiveView(snapshot(2, 3), { width: 200, height: 24, nowMs: now, header });
      const at = lines.indexOf('EVENTS');
      expect(at).to.be.greaterThan(0);
      expect(lines[at + 1]).to.match(/^0s\s+machine\/worker-us-east-1a-0\s+!FailedCreate\s+Created Machine/);
      expect(lines[at + 2]).to.match(/^1s\s+machine\/worker-us-east-1a-1\s+Create\s+.*\(x3\)$/);
    });

    it('says how many machines it could not show when they do not fit', () => {
      const lines = renderLiveView(snapshot(40, 20), { width: 80, height: 24, nowMs: now, header });
      const more = lines.find((l) => /^… \d+ more machines$/.test(l));
      expect(more).to.not.equal(undefined);
      const shown = lines.filter((l) => l.startsWith('worker-us-east-1a-')).length;
      expect(shown + Number(/\d+/.exec(more!)![0])).to.equal(40);
      expect(lines.indexOf('EVENTS')).to.be.greaterThan(0);
    });

    it('says when there is nothing yet', () => {
      const lines = renderLiveView(
        { machineSets: [], machines: [], events: [] },
        { width: 80, height: 24, nowMs: now, header },
      );
      expect(lines).to.include('(none)');
      expect(lines).to.include('EVENTS (none yet)');
    });
  });
});
