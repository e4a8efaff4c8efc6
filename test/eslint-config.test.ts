import { expect } from 'chai';
import { Linter, type Rule } from 'eslint';

// The repository's lint rule that keeps comments self-contained, run on its own over small sources.
const config = (await import(new URL('../eslint.config.js', import.meta.url).href)) as { noOffRepoCitations: Rule.RuleModule };

function findings(source: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(source, [
    { files: ['**/*.js'], plugins: { local: { rules: { 'no-off-repo-citations': config.noOffRepoCitations } } }, rules: { 'local/no-off-repo-citations': 'error' } },
  ], { filename: 'example.js' });
  return messages.map((m) => `${m.line}:${m.column} ${m.message}`);
}

describe('lint rule: comments cite nothing the repository lacks', () => {
  it('reports a numbered section, a numbered flaw and a spec section code, where they stand', () => {
    expect(findings('// The reconcile (spec §1.5).\nconst a = 1; /* Flaw 8 fixed */\n/** Writes the record (A2.3). */\nexport { a };\n')).to.deep.equal([
      '1:24 "§1.5" cites a numbered section of a document outside the repository: say the reason itself, or link a public reference.',
      '2:17 "Flaw 8" cites a numbered flaw of a list outside the repository: say the reason itself, or link a public reference.',
      '3:24 "A2.3" cites a numbered section of a document outside the repository: say the reason itself, or link a public reference.',
    ]);
  });

  it('reports a lower-case flaw, a spec document by name or path, and a bare bug key', () => {
    const source = ['// back off (flaw 14)', '// as aws.md says', '// see spec/gcp.md', '// the pain points in user-pain-points', '// kept (OCPBUGS-1327)', ''].join('\n');
    expect(findings(source).map((f) => f.split(' cites')[0])).to.deep.equal(['1:14 "flaw 14"', '2:7 "aws.md"', '3:8 "spec/gcp.md"', '4:23 "user-pain-points"', '5:10 "OCPBUGS-1327"']);
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
