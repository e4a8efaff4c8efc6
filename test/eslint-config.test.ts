import { expect } from 'chai';
import { Linter, type Linter as L, type Rule } from 'eslint';

// The repository's lint rule that keeps comments self-contained, run on its own over small sources.
const config = (await import(new URL('../eslint.config.js', import.meta.url).href)) as {
  noOffRepoCitations: Rule.RuleModule;
  libRooms: L.Config[];
};

function findings(source: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(
    source,
    [
      {
        files: ['**/*.js'],
        plugins: { local: { rules: { 'no-off-repo-citations': config.noOffRepoCitations } } },
        rules: { 'local/no-off-repo-citations': 'error' },
      },
    ],
    { filename: 'example.js' },
  );
  return messages.map((m) => `${m.line}:${m.column} ${m.message}`);
}

describe('lint rule: comments cite nothing the repository lacks', () => {
  it('reports a numbered section, a numbered flaw and a spec section code, where they stand', () => {
    expect(
      findings(
        '// The reconcile (spec §1.5).\nconst a = 1; /* Flaw 8 fixed */\n/** Writes the record (A2.3). */\nexport { a };\n',
      ),
    ).to.deep.equal([
      '1:24 "§1.5" cites a numbered section of a document outside the repository: say the reason itself, or link a public reference.',
      '2:17 "Flaw 8" cites a numbered flaw of a list outside the repository: say the reason itself, or link a public reference.',
      '3:24 "A2.3" cites a numbered section of a document outside the repository: say the reason itself, or link a public reference.',
    ]);
  });

  it('reports a lower-case flaw, a spec document by name or path, and a bare bug key', () => {
    const source = [
      '// back off (flaw 14)',
      '// as aws.md says',
      '// see spec/gcp.md',
      '// the pain points in user-pain-points',
      '// kept (OCPBUGS-1327)',
      '',
    ].join('\n');
    expect(findings(source).map((f) => f.split(' cites')[0])).to.deep.equal([
      '1:14 "flaw 14"',
      '2:7 "aws.md"',
      '3:8 "spec/gcp.md"',
      '4:23 "user-pain-points"',
      '5:10 "OCPBUGS-1327"',
    ]);
  });

  it('accepts the reason in words, a link to the public bug, upstream links, and ordinary names', () => {
    const source = [
      '// Validation runs after the deletion branch, so a machine being deleted is never stuck on it.',
      '// https://issues.redhat.com/browse/OCPBUGS-1327',
      '// Reference: https://github.com/openshift/machine-api-operator/blob/main/pkg/controller/machine/controller.go',
      '// See README.md; accelerator families A2, A3 and G2; https://example.com/docs/aws.md',
      'export const x = "spec §1.5 in a string is not a comment";',
      '',
    ].join('\n');
    expect(findings(source)).to.deep.equal([]);
  });
});

describe('lint rules: what each room of lib/ may import', () => {
  function importFindings(filename: string, specifier: string): string[] {
    const linter = new Linter({ configType: 'flat' });
    return linter
      .verify(`import { x } from '${specifier}';\nexport { x };\n`, config.libRooms, { filename })
      .map((m) => m.message);
  }

  it('lib/client may not import lib/runtime, which builds on the client', () => {
    expect(importFindings('lib/client/http-transport.ts', '../runtime/real-clock.js')).to.deep.equal([
      "'../runtime/real-clock.js' import is restricted from being used by a pattern. lib/client/ never imports lib/runtime/ (runtime imports the client); shared utilities live in lib/base/.",
    ]);
    expect(importFindings('lib/client/http-transport.ts', '../runtime/index.js')).to.have.length(1);
  });

  it('lib/base imports only its siblings', () => {
    expect(importFindings('lib/base/structured-logger.ts', './clock.js')).to.deep.equal([]);
    expect(importFindings('lib/base/structured-logger.ts', '../apis/meta.js')).to.deep.equal([
      "'../apis/meta.js' import is restricted from being used by a pattern. lib/base/ imports nothing else in lib/: it is the leaf every room may import.",
    ]);
  });

  it('every room may import lib/base, and each room still keeps lib-wide rules', () => {
    expect(importFindings('lib/client/http-transport.ts', '../base/real-clock.js')).to.deep.equal([]);
    expect(importFindings('lib/runtime/manager.ts', '../base/real-clock.js')).to.deep.equal([]);
    expect(importFindings('lib/runtime/manager.ts', '../client/kube-client.js')).to.deep.equal([]);
    expect(importFindings('lib/client/kube-client.ts', '../../providers/aws/index.js')).to.have.length(1);
    expect(importFindings('lib/base/clock.ts', '@aws-sdk/client-ec2')).to.have.length(1);
  });
});
