// The codes Node.js and undici give a request that never got a reply from the cloud: the connection was refused,
// reset or cut, the name did not resolve, or the route is down. Nothing about the request is wrong and the cloud
// may or may not have acted on it, so every cloud's classifier counts them as transient. One list, so a code
// learnt on one cloud counts on all of them.
const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
]);

/** Whether `code` (an error's `code`, or the `name` some SDKs copy it to) says the request got no reply. */
export const isNetworkErrorCode = (code: unknown): boolean => typeof code === 'string' && NETWORK_ERROR_CODES.has(code);
