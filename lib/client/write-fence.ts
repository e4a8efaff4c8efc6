// A check the client makes just before a write (any method but GET) leaves for the API server. A replica
// that may no longer be the leader must not change the cluster: its fence throws, and the request is
// never sent.
export interface WriteFence {
  /** Throws (a typed error naming the request) when this process may not write now. */
  check(method: string, path: string): void;
}
