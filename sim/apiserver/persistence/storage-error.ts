// Failures of the data directory. A write that could not be made durable is never acknowledged: the
// request that made it gets a 500, and so does every later one, because the state in memory is then
// ahead of the disk and acknowledging anything built on it could lose it.

export class StorageError extends Error {
  override readonly name = 'StorageError';
}

/** The data directory holds something that cannot be read back (not a torn tail: that is expected). */
export class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
}
