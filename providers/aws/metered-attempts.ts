// Every attempt an SDK client makes, its own retries included, waits in the shared rate limiter and tells it
// how AWS answered. Installed inside the SDK's retry loop: a RunInstances the SDK sends again after
// RequestLimitExceeded waits for a token like any other call, and the refusal lowers the rate of its class for
// every worker of the process (lib's adaptive rate), instead of each client guessing on its own.
import type { FinalizeRequestMiddleware, MiddlewareStack } from '@smithy/types';
import type { ActionClass, RegionalRateLimiter } from '../../lib/index.js';
import { classifyEc2Error } from './errors.js';

/** EC2 meters its non-mutating actions (Describe*, Get*, List*, Search*) apart from everything else. */
const NON_MUTATING = ['Describe', 'Get', 'List', 'Search'];

/** The action class of a command by its name ("DescribeInstancesCommand", "RunInstancesCommand"). */
export function actionClassOf(commandName: string | undefined): ActionClass {
  return NON_MUTATING.some((p) => (commandName ?? '').startsWith(p)) ? 'describe' : 'mutate';
}

/** EC2's throttling replies carry no wait to honour: the class's rate follows what EC2 admits instead. */
const isEc2Throttling = (err: unknown) => classifyEc2Error(err) === 'throttled';

/** Where the SDK keeps the abort signal a caller passed to `send`. */
interface AttemptContext {
  commandName?: string;
  __smithy_context?: { abortSignal?: unknown };
}

const abortSignalOf = (context: AttemptContext): AbortSignal | undefined => {
  const s = context.__smithy_context?.abortSignal;
  return s instanceof AbortSignal ? s : undefined;
};

/** Meters every attempt of a client's commands in `scope` (the region). */
export function meterAttempts<I extends object, O extends object>(
  stack: MiddlewareStack<I, O>,
  limiter: RegionalRateLimiter,
  scope: string,
): void {
  const metered: FinalizeRequestMiddleware<I, O> = (next, context: AttemptContext) => (args) =>
    limiter.send(scope, actionClassOf(context.commandName), () => next(args), {
      signal: abortSignalOf(context),
      isThrottling: isEc2Throttling,
    });
  stack.addRelativeTo(metered, {
    relation: 'after',
    toMiddleware: 'retryMiddleware',
    name: 'machineApiMeteredAttempt',
    override: true,
  });
}
