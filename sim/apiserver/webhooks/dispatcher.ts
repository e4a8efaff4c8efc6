// Dynamic admission as kube-apiserver runs it. Mutating webhooks are called one after the other
// (configurations sorted by name, webhooks in their order), each JSON patch applied before the next
// call, and those with reinvocationPolicy IfNeeded called once more when a later webhook changed the
// object. Validating webhooks are called in parallel on the final object. A webhook that cannot be
// called, or answers garbage, fails the request (500, "failed calling webhook ...") under failurePolicy
// Fail and is skipped and reported under Ignore; a denial is the webhook's own status, as kube builds it.
import * as E from '../errors.js';
import { deepEqual, isPlainObject } from '../json.js';
import { checkValueDepth } from '../json-depth.js';
import { applyJsonPatch } from '../json-patch.js';
import { PatchError } from '../patch-error.js';
import { apiVersionFor } from '../resource-type.js';
import type { Store } from '../storage/store.js';
import { buildReview, InvalidReviewError, parseReview } from './admission-review.js';
import type { AdmissionAttributes } from './attributes.js';
import {
  AdmissionRegistrationGroup,
  MutatingPlural,
  ValidatingPlural,
  type Webhook,
  type WebhookConfiguration,
} from './configuration.js';
import { matchWebhook, type Invocation } from './matcher.js';
import {
  MaxWebhookReplyBytes,
  postReview,
  resolveTarget,
  WebhookCallError,
  type WebhookServiceResolver,
} from './webhook-client.js';

export interface WebhookDispatcherOptions {
  /** Where Service-addressed webhooks listen (loopback host:port); webhooks whose Service is unknown fail to be called. */
  resolveService?: WebhookServiceResolver;
  /** Told about each webhook that failed under failurePolicy Ignore, with kube's "failed calling webhook" message. */
  onFailedOpen?: (webhook: string, message: string) => void;
  maxReplyBytes?: number;
}

interface Hook {
  webhook: Webhook;
  uid: string;
}

/** kube-apiserver's denial: the webhook's status, at least a 400, its message prefixed with the webhook's name. */
export function denialError(webhook: string, status: Record<string, unknown> | undefined): E.StatusError {
  const s = status ?? {};
  const code = typeof s.code === 'number' && s.code >= 400 ? s.code : 400;
  const reason = typeof s.reason === 'string' ? s.reason : '';
  const message = typeof s.message === 'string' ? s.message : '';
  const deniedBy = `admission webhook "${webhook}" denied the request`;
  const text =
    message !== ''
      ? `${deniedBy}: ${message}`
      : reason !== ''
        ? `${deniedBy}: ${reason}`
        : `${deniedBy} without explanation`;
  return new E.StatusError(code, reason, text, isPlainObject(s.details) ? s.details : undefined);
}

/**
 * Webhook configurations are never sent to webhooks, as in kube-apiserver: a broken webhook matching
 * everything could otherwise never be removed.
 */
function isExempt(attrs: AdmissionAttributes): boolean {
  return (
    attrs.type.group === AdmissionRegistrationGroup &&
    (attrs.type.plural === MutatingPlural || attrs.type.plural === ValidatingPlural)
  );
}

export class WebhookDispatcher {
  constructor(
    private readonly store: Store,
    private readonly opts: WebhookDispatcherOptions = {},
  ) {}

  /** Whether any webhook is configured at all (without one, writes take no detour). */
  active(): boolean {
    return this.hooks(MutatingPlural).length > 0 || this.hooks(ValidatingPlural).length > 0;
  }

  private hooks(plural: string): Hook[] {
    const configs = this.store.list(`${AdmissionRegistrationGroup}/${plural}`) as WebhookConfiguration[];
    const sorted = [...configs].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
    const out: Hook[] = [];
    for (const c of sorted)
      (c.webhooks ?? []).forEach((webhook, i) => out.push({ webhook, uid: `${c.metadata.name ?? ''}/${i}` }));
    return out;
  }

  private namespaceLabels = (name: string): Record<string, string> | undefined => {
    const ns = this.store.get('/namespaces', '', name);
    return ns ? (ns.metadata.labels ?? {}) : undefined;
  };

  private matching(hooks: Hook[], attrs: AdmissionAttributes): Invocation[] {
    const out: Invocation[] = [];
    for (const h of hooks) {
      const inv = matchWebhook(h.webhook, h.uid, attrs, this.namespaceLabels);
      if (inv) out.push(inv);
    }
    return out;
  }

  /**
   * Runs the mutating webhooks and returns the object they leave (attrs.object when none changed it).
   * Warnings from every webhook are appended to `warnings`.
   */
  async mutate(attrs: AdmissionAttributes, warnings: string[]): Promise<Record<string, unknown> | undefined> {
    const hooks = this.hooks(MutatingPlural);
    if (hooks.length === 0 || isExempt(attrs)) return attrs.object;
    let current = { ...attrs };
    const reinvocable = new Set<string>();
    const reinvoke = new Set<string>();
    for (const h of hooks) {
      // Matched against the object as the webhooks before it left it.
      const inv = matchWebhook(h.webhook, h.uid, current, this.namespaceLabels);
      if (!inv) continue;
      const next = await this.callMutating(inv, current, warnings);
      if (next !== current.object) {
        for (const uid of reinvocable) reinvoke.add(uid);
        current = { ...current, object: next };
      }
      if (inv.hook.reinvocationPolicy === 'IfNeeded') reinvocable.add(inv.uid);
    }
    if (reinvoke.size === 0) return current.object;
    // One more round, only for IfNeeded webhooks that ran before a later webhook changed the object.
    for (const h of hooks) {
      if (!reinvoke.has(h.uid)) continue;
      const inv = matchWebhook(h.webhook, h.uid, current, this.namespaceLabels);
      if (!inv) continue;
      const next = await this.callMutating(inv, current, warnings);
      current = { ...current, object: next };
    }
    return current.object;
  }

  /** Runs the validating webhooks in parallel; the first failure, in webhook order, is thrown. */
  async validate(attrs: AdmissionAttributes, warnings: string[]): Promise<void> {
    const hooks = this.hooks(ValidatingPlural);
    if (hooks.length === 0 || isExempt(attrs)) return;
    const invocations = this.matching(hooks, attrs);
    const results = await Promise.allSettled(invocations.map((inv) => this.call(inv, attrs, false, warnings)));
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  }

  /** One mutating call; returns the patched object, or the same object when nothing changed. */
  private async callMutating(
    inv: Invocation,
    attrs: AdmissionAttributes,
    warnings: string[],
  ): Promise<Record<string, unknown> | undefined> {
    const patch = await this.call(inv, attrs, true, warnings);
    if (!patch || patch.length === 0) return attrs.object;
    const name = inv.hook.name ?? '';
    const obj = attrs.object;
    if (!obj)
      throw E.internalError(
        `admission webhook "${name}" attempted to modify the object, which is not supported for this operation`,
      );
    const sentVersion = apiVersionFor(inv.kind.group, inv.kind.version);
    let patched: unknown;
    try {
      // A few copy operations can double an object each time: the patch may duplicate no more than a reply may carry.
      patched = applyJsonPatch({ ...obj, apiVersion: sentVersion }, patch, {
        maxCopiedBytes: this.opts.maxReplyBytes ?? MaxWebhookReplyBytes,
      });
      checkValueDepth(patched);
    } catch (err) {
      if (err instanceof PatchError || err instanceof E.StatusError) throw E.internalError(err.message);
      throw err;
    }
    if (!isPlainObject(patched) || !isPlainObject(patched.metadata)) {
      throw E.internalError(`admission webhook "${name}" returned a patch that leaves no object with metadata`);
    }
    // Back to the version the request used (custom resources convert with strategy None).
    const result = patched.apiVersion === sentVersion ? { ...patched, apiVersion: obj.apiVersion } : patched;
    return deepEqual(result, obj) ? obj : result;
  }

  /**
   * Calls one webhook; resolves with its patch (mutating) or undefined. A failure to call it is
   * swallowed under failurePolicy Ignore (reported to onFailedOpen) and a 500 under Fail.
   */
  private async call(
    inv: Invocation,
    attrs: AdmissionAttributes,
    mutating: boolean,
    warnings: string[],
  ): Promise<unknown[] | undefined> {
    try {
      return await this.callOnce(inv, attrs, mutating, warnings);
    } catch (err) {
      if (!(err instanceof WebhookCallError)) throw err;
      if (inv.hook.failurePolicy === 'Ignore') {
        this.opts.onFailedOpen?.(err.webhook, err.message);
        return undefined;
      }
      throw E.internalError(err.message);
    }
  }

  private async callOnce(
    inv: Invocation,
    attrs: AdmissionAttributes,
    mutating: boolean,
    warnings: string[],
  ): Promise<unknown[] | undefined> {
    const hook = inv.hook;
    const name = hook.name ?? '';
    if (attrs.dryRun && hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') {
      // A webhook with side effects would act on a write that never happens.
      throw E.badRequest(`admission webhook "${name}" does not support dry run`);
    }
    const timeout = hook.timeoutSeconds ?? 10;
    const cc = hook.clientConfig ?? {};
    const target = resolveTarget(cc, timeout, this.opts.resolveService);
    if (typeof target === 'string') throw new WebhookCallError(name, target);
    const review = buildReview(attrs, inv);
    const text = await postReview(
      name,
      cc,
      target,
      review.body,
      timeout,
      this.opts.maxReplyBytes ?? MaxWebhookReplyBytes,
    );
    let result;
    try {
      result = parseReview(text, review.uid, mutating);
    } catch (err) {
      if (err instanceof InvalidReviewError)
        throw new WebhookCallError(name, `received invalid webhook response: ${err.message}`);
      throw err;
    }
    warnings.push(...result.warnings);
    if (!result.allowed) throw denialError(name, result.result);
    return result.patch;
  }
}
