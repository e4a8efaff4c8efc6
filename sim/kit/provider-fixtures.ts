// Small stand-ins every provider's unit tests need: a logger that says nothing and a KubeClient that only
// serves Secrets (the credentials and user-data a provider reads), with the API server's 404 otherwise.
//
// How a provider uses it: in test/providers/<cloud>/fixtures.ts,
//   export { silentLogger } from '../../../sim/kit/index.js';
//   export const secretsClient = (secrets = defaultSecrets()) => secretsOnlyClient(secrets);
import { ApiError } from '../../lib/client/errors.js';
import type { KubeClient } from '../../lib/client/kube-client.js';
import type { KubeObject } from '../../lib/apis/meta.js';
import type { Secret } from '../../lib/apis/core.js';
import type { Logger } from '../../lib/base/logger.js';

export const silentLogger: Logger = {
  error: () => {},
  warn: () => {},
  info: () => {},
  debug: () => {},
  child: () => silentLogger,
};

/** A KubeClient that serves `secrets` (a live array: tests may add to it) by get; anything else is a test bug and throws. */
export function secretsOnlyClient(secrets: Secret[]): KubeClient & { secrets: Secret[] } {
  const unsupported = (): never => {
    throw new Error('secretsClient: only get of Secrets is supported');
  };
  return {
    secrets,
    async get<T extends KubeObject>(resource: { kind: string }, key: { namespace?: string; name: string }): Promise<T> {
      const s =
        resource.kind === 'Secret'
          ? secrets.find((x) => x.metadata.namespace === key.namespace && x.metadata.name === key.name)
          : undefined;
      if (!s)
        throw new ApiError(404, {
          status: 'Failure',
          reason: 'NotFound',
          code: 404,
          message: `secrets "${key.name}" not found`,
        });
      return structuredClone(s) as unknown as T;
    },
    list: unsupported,
    create: unsupported,
    update: unsupported,
    updateStatus: unsupported,
    patch: unsupported,
    delete: unsupported,
    evict: unsupported,
    watch: unsupported,
  };
}
