// Recomputes the targets of a saved --json result (e.g. after the target definitions changed):
// node --import tsx hack/bench/retarget.ts out.json (held to the limits of the plan it ran: --quick or full)
import { readFileSync } from 'node:fs';
import { FULL, QUICK } from './plans.js';
import { evaluateTargets, formatTable, type BenchReport } from './report.js';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: retarget.ts FILE.json\n');
  process.exit(2);
}
const saved = JSON.parse(readFileSync(file, 'utf8')) as BenchReport & { quick?: boolean };
const sizes = saved.scenarios.flatMap((s) => (/^scale-up-(\d+)$/.exec(s.name) ? [Number(s.name.split('-')[2])] : []));
process.stdout.write(
  formatTable({
    scenarios: saved.scenarios,
    targets: evaluateTargets(saved.scenarios, {
      largest: Math.max(...sizes),
      limits: (saved.quick ? QUICK : FULL).limits,
      totalSeconds: saved.totalSeconds,
    }),
    totalSeconds: saved.totalSeconds,
  }),
);
