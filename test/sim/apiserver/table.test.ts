import { expect } from 'chai';
import { toTable } from '../../../sim/apiserver/table.js';
import type { PrinterColumn } from '../../../sim/apiserver/table.js';
import type { KubeObject } from '../../../lib/apis/meta.js';
import { machine, now } from './printing-fixtures.js';

const machineColumns: PrinterColumn[] = [
  { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'Phase of machine' },
  { name: 'Type', type: 'string', jsonPath: ".metadata.labels['machine\\.openshift\\.io/instance-type']" },
  { name: 'Node', type: 'string', jsonPath: '.status.nodeRef.name', priority: 1 },
  { name: 'Replicas', type: 'integer', jsonPath: '.status.replicas' },
  { name: 'State', type: 'string', jsonPath: ".metadata.annotations['machine\\.openshift\\.io/instance-state']" },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

describe('toTable', () => {
  it('builds a meta.k8s.io/v1 Table with the Name column first', () => {
    const table = toTable([machine], machineColumns, { now, listMeta: { resourceVersion: '42' } });
    expect(table.kind).to.equal('Table');
    expect(table.apiVersion).to.equal('meta.k8s.io/v1');
    expect(table.metadata).to.deep.equal({ resourceVersion: '42' });
    const defs = table.columnDefinitions as Array<Record<string, unknown>>;
    expect(defs.map((d) => d.name)).to.deep.equal(['Name', 'Phase', 'Type', 'Node', 'Replicas', 'State', 'Age']);
    expect(defs[0]).to.include({ name: 'Name', type: 'string', format: 'name', priority: 0 });
    expect(defs[1]).to.deep.equal({
      name: 'Phase',
      type: 'string',
      format: '',
      description: 'Phase of machine',
      priority: 0,
    });
    expect(defs[3]).to.include({ priority: 1 });
    const rows = table.rows as Array<{ cells: unknown[]; object: unknown }>;
    expect(rows[0]!.cells).to.deep.equal(['m-1', 'Running', 'm5.large', 'node-1', 3, 'running', '5m']);
  });

  it('carries PartialObjectMetadata in each row by default, as kubectl asks', () => {
    const rows = toTable([machine], [], { now }).rows as Array<{ object: unknown }>;
    expect(rows[0]!.object).to.deep.equal({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: machine.metadata,
    });
  });

  it('carries the whole object, or nothing, when asked', () => {
    const full = toTable([machine], [], { now, includeObject: 'Object' }).rows as Array<{ object: unknown }>;
    expect(full[0]!.object).to.deep.equal(machine);
    const none = toTable([machine], [], { now, includeObject: 'None' }).rows as Array<Record<string, unknown>>;
    expect(none[0]).to.not.have.property('object');
  });

  it("adds kube's default Age column when a CRD declares no columns", () => {
    const table = toTable([machine], [], { now });
    const defs = table.columnDefinitions as Array<Record<string, unknown>>;
    expect(defs.map((d) => [d.name, d.type])).to.deep.equal([
      ['Name', 'string'],
      ['Age', 'date'],
    ]);
    expect((table.rows as Array<{ cells: unknown[] }>)[0]!.cells).to.deep.equal(['m-1', '5m']);
  });

  it('shows null for a missing value and for a value of the wrong type', () => {
    const cols: PrinterColumn[] = [
      { name: 'Missing', type: 'string', jsonPath: '.status.nope' },
      { name: 'NotInt', type: 'integer', jsonPath: '.status.phase' },
      { name: 'NotBool', type: 'boolean', jsonPath: '.status.phase' },
      { name: 'Broken', type: 'string', jsonPath: '.status[' },
    ];
    const rows = toTable([machine], cols, { now }).rows as Array<{ cells: unknown[] }>;
    expect(rows[0]!.cells).to.deep.equal(['m-1', null, null, null, null]);
  });

  it('renders structures in string columns as JSON and dates that do not parse as <invalid>', () => {
    const obj = { ...machine, metadata: { ...machine.metadata, creationTimestamp: 'garbage' } } as KubeObject;
    const cols: PrinterColumn[] = [
      { name: 'Ref', type: 'string', jsonPath: '.status.nodeRef' },
      { name: 'Types', type: 'string', jsonPath: '.status.addresses[*].type' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      { name: 'Ratio', type: 'number', jsonPath: '.status.replicas' },
    ];
    const rows = toTable([obj], cols, { now }).rows as Array<{ cells: unknown[] }>;
    expect(rows[0]!.cells).to.deep.equal(['m-1', '{"name":"node-1"}', 'InternalIP', '<invalid>', 3]);
  });

  it('does not add a second Name column when the first given column is one', () => {
    const cols: PrinterColumn[] = [{ name: 'NAME', type: 'string', format: 'name', jsonPath: '.metadata.name' }];
    const defs = toTable([machine], cols, { now }).columnDefinitions as unknown[];
    expect(defs).to.have.length(1);
  });
});
