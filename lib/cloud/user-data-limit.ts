// Every cloud caps the user data an instance is launched with, and refuses a launch over the cap the same way on
// every retry (a 400 naming the field, or a 413 when the whole request outgrows what the API reads). The cap is
// checked here, before any cloud call, so that such a Machine ends Failed with InvalidConfiguration naming its
// Secret and the cap instead of retrying a refusal that will never change. The rule is written once; each
// provider supplies its cloud's numbers and says what it counts (the Secret's bytes, or the value as sent). The
// message carries sizes and the Secret's name, never its content.
import { InvalidMachineConfigurationError } from '../apis/errors.js';

/** The providerSpec field a too large user data is blamed on: the same on every cloud. */
export const USER_DATA_SECRET_FIELD = 'spec.providerSpec.value.userDataSecret';

/** One of a cloud's caps, in bytes. */
export interface SizeLimit {
  maxBytes: number;
  /** What the cloud caps, for the message, e.g. "EC2 user data (counted before base64 encoding)". */
  what: string;
}

/** Where the user data came from: the Secret of the Machine's namespace and its key. */
export interface UserDataSource {
  namespace: string;
  name: string;
  key: string;
}

const sourceText = (s: UserDataSource): string => `user data in Secret ${s.namespace}/${s.name} (key "${s.key}")`;

/** Throws InvalidConfiguration when the user data, `bytes` long as the cloud counts it, is over `limit`. */
export function checkUserDataSize(source: UserDataSource, bytes: number, limit: SizeLimit): void {
  if (bytes <= limit.maxBytes) return;
  throw new InvalidMachineConfigurationError(
    `${sourceText(source)} is ${bytes} bytes, over the limit of ${limit.maxBytes} bytes for ${limit.what}`,
    { field: USER_DATA_SECRET_FIELD },
  );
}

/**
 * Throws InvalidConfiguration when what the cloud counts together with the user data (GCE: every metadata key and
 * value) comes to `totalBytes`, over `limit`; `bytes` is the user data's own share.
 */
export function checkUserDataTotal(source: UserDataSource, bytes: number, totalBytes: number, limit: SizeLimit): void {
  if (totalBytes <= limit.maxBytes) return;
  throw new InvalidMachineConfigurationError(
    `${sourceText(source)} is ${bytes} bytes, which makes ${totalBytes} bytes of ${limit.what}, over the limit of ` +
      `${limit.maxBytes} bytes`,
    { field: USER_DATA_SECRET_FIELD },
  );
}
