// Bearer-token authentication: every request must carry the server's token.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export function isAuthorized(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? '';
  const m = /^Bearer\s+(.+)$/i.exec(header);
  if (!m?.[1]) return false;
  const given = Buffer.from(m[1].trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
