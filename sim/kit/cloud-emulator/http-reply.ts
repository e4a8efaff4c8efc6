// node:http helpers shared by the emulators for the parts of a fault that are about the connection.
import type { ServerResponse } from 'node:http';

/** Loses a reply the way a network failure would: the client sees ECONNRESET / socket hang up. */
export function dropConnection(res: ServerResponse): void {
  res.socket?.destroy();
  res.destroy();
}
