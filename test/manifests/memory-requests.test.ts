// The controllers' memory requests in manifests/providers/<cloud>/deployment.yaml come from README "Sizing the
// heap": the heap at the start of each binary's measured curve plus what lives outside the V8 heap, rounded up to
// 10 MiB; and they cover the peak resident sets the last full benchmark run measured at 100 Machines.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { controllersOf, deploymentClouds, readDeployment, type Container } from './deployment-manifest.js';
import { repo } from './manifest-files.js';

const readme = readFileSync(join(repo, 'README.md'), 'utf8');

function number(re: RegExp, what: string): number {
  const m = re.exec(readme);
  if (!m?.[1]) throw new Error(`README "Sizing the heap" no longer states ${what}`);
  return Number(m[1]);
}

/** The sizing rule's numbers, MB: heap at the start of the curve, its growth per 1,000 Machines, and outside the heap. */
const rule = {
  provider: {
    base: number(
      /the provider binary, the largest, needs about (\d+) MB plus \d+ MB per 1,000 Machines/,
      'the provider base',
    ),
    per1000: number(
      /the provider binary, the largest, needs about \d+ MB plus (\d+) MB per 1,000 Machines/,
      'its slope',
    ),
  },
  others: {
    base: number(/\(MachineSet and NodeLink about (\d+) MB plus \d+ MB per 1,000\)/, 'the MachineSet/NodeLink base'),
    per1000: number(/\(MachineSet and NodeLink about \d+ MB plus (\d+) MB per 1,000\)/, 'their slope'),
  },
  outsideHeap: number(/about (\d+) MB more for what lives outside the V8 heap/, 'the resident set outside the heap'),
};

interface Scenario {
  name: string;
  metrics: { machines: number; peakRssMb: Record<string, number> };
}
const lastRun = JSON.parse(readFileSync(join(repo, 'hack', 'bench', 'last-full-run.json'), 'utf8')) as {
  scenarios: Scenario[];
};
const at100 = lastRun.scenarios.find((s) => s.name === 'scale-up-100')!.metrics.peakRssMb;

const roundUp10 = (mb: number) => Math.ceil(mb / 10) * 10;
const mebibytes = (q: string | undefined) => {
  const m = /^(\d+)Mi$/.exec(q ?? '');
  if (!m) throw new Error(`memory request ${q} is not in Mi`);
  return Number(m[1]);
};
const requestOf = (c: Container) =>
  mebibytes((c as Container & { resources?: { requests?: { memory?: string } } }).resources?.requests?.memory);

/** The sizing class of each controller, and the benchmark process measured for it. */
const classes: Record<string, { curve: keyof typeof rule; measured: string }> = {
  'machine-controller': { curve: 'provider', measured: 'machine-api-provider-aws' },
  'machineset-controller': { curve: 'others', measured: 'machineset-controller' },
  'nodelink-controller': { curve: 'others', measured: 'nodelink-controller' },
  // Not in the benchmark; it caches the same Machines and Nodes as NodeLink.
  'machine-healthcheck-controller': { curve: 'others', measured: 'nodelink-controller' },
};

describe('memory requests of manifests/providers/*/deployment.yaml', () => {
  it('reads the sizing rule from the README', () => {
    expect(rule.provider.base).to.be.greaterThan(rule.others.base);
    expect(rule.outsideHeap).to.be.greaterThan(0);
  });

  for (const cloud of deploymentClouds()) {
    const d = readDeployment(cloud);
    for (const c of controllersOf(d)) {
      it(`${cloud}/${c.name}: requests the heap at the start of its curve plus the resident set outside it`, () => {
        const cls = classes[c.name];
        expect(cls, `${c.name} has a sizing class`).to.not.equal(undefined);
        const curve = rule[cls!.curve] as { base: number };
        expect(requestOf(c)).to.equal(roundUp10(curve.base + rule.outsideHeap));
        expect(requestOf(c), `above the peak RSS measured at 100 Machines`).to.be.at.least(at100[cls!.measured]!);
      });
    }

    it(`${cloud}: leaves the kube-rbac-proxy sidecars (Go) at 20Mi`, () => {
      for (const c of d.spec.template.spec.containers.filter((x) => x.name.startsWith('kube-rbac-proxy-')))
        expect(requestOf(c), c.name).to.equal(20);
    });
  }

  it("matches the README's worked example for 3,000 Machines", () => {
    const at = (curve: { base: number; per1000: number }, machines: number) =>
      roundUp10(curve.base + (curve.per1000 * machines) / 1000 + rule.outsideHeap);
    expect(readme.replace(/\s+/g, ' ')).to.contain(
      `a 3,000-Machine cluster requests ${at(rule.provider, 3000)}Mi for the provider and ${at(rule.others, 3000)}Mi for the others`,
    );
  });
});
