// How a list of field errors reads in a denial: apimachinery's aggregate format, which kube-apiserver shows
// after `admission webhook "<name>" denied the request: `. One error reads alone; several as "[a, b]".
import type { FieldIssue } from '../cloud/spec-reader.js';

/** How many errors a denial spells out; the rest are counted, so the message stays short however bad the object. */
export const MaxDeniedIssues = 20;

export function aggregateMessage(issues: readonly FieldIssue[]): string {
  const messages = [...new Set(issues.map((i) => i.message))];
  const listed = messages.slice(0, MaxDeniedIssues);
  if (messages.length > MaxDeniedIssues) listed.push(`and ${messages.length - MaxDeniedIssues} more`);
  return listed.length === 1 ? listed[0]! : `[${listed.join(', ')}]`;
}
