// The one question every request and every access review asks: may this user do this?
import type { Attributes } from './attributes.js';
import type { PolicyRule } from './policy-rule.js';
import type { UserInfo } from './user.js';

export interface Decision {
  allowed: boolean;
  /** Why, when there is something to say (a binding naming a missing role, or who alone is authorized). */
  reason: string;
}

/** What a user may do in a namespace (SelfSubjectRulesReview's answer). */
export interface UserRules {
  resourceRules: Array<
    Required<Pick<PolicyRule, 'verbs' | 'apiGroups' | 'resources'>> & Pick<PolicyRule, 'resourceNames'>
  >;
  nonResourceRules: Array<Required<Pick<PolicyRule, 'verbs' | 'nonResourceURLs'>>>;
  incomplete: boolean;
  evaluationError?: string;
}

export interface Authorizer {
  authorize(a: Attributes): Decision;
  rulesFor(user: UserInfo, namespace: string): UserRules;
}

/** The rules that allow everything (what system:masters holds). */
export const AllRules: UserRules = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
};
