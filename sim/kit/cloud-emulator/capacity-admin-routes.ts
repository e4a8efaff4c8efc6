// The admin routes that let a person or a test drive a stock-out while an emulator runs: POST /capacity turns an
// instance type's capacity off or on in a zone and market, POST /interrupt has the cloud reclaim a spot or
// preemptible instance with its own notice. The same body on every emulator; each says what it can do.
import { AdminRequestError, adminObject, adminString, type AdminRoute } from './admin-server.js';
import type { CapacityMarket } from './capacity-table.js';

/** What an emulator's capacity looks like to the admin endpoint. */
export interface CapacityAdmin {
  /** The body's field that names the instance type: "instanceType", or IBM Cloud's "profile". */
  typeField: string;
  /** The markets the cloud counts apart: both on EC2 and GCE, none on VPC (only "*" is accepted there). */
  markets: readonly CapacityMarket[];
  setCapacity(instanceType: string, zone: string, market: CapacityMarket | '*', available: boolean): void;
  /** Has the cloud reclaim the instance (its notice first); absent where the cloud has no spot market. */
  interrupt?(instanceId: string): void;
}

function capacityBody(c: CapacityAdmin, raw: unknown) {
  const body = adminObject(raw);
  const instanceType = adminString(body, c.typeField);
  const zone = body.zone === undefined ? '*' : adminString(body, 'zone');
  const market = body.market === undefined ? '*' : adminString(body, 'market');
  const allowed = ['*', ...c.markets];
  if (!allowed.includes(market))
    throw new AdminRequestError(400, `market must be one of ${allowed.map((m) => JSON.stringify(m)).join(', ')}`);
  if (typeof body.available !== 'boolean') throw new AdminRequestError(400, 'available must be true or false');
  return { instanceType, zone, market: market as CapacityMarket | '*', available: body.available };
}

export function capacityAdminRoutes(c: CapacityAdmin): AdminRoute[] {
  const markets = ['*', ...c.markets].map((m) => `"${m}"`).join(' | ');
  const routes: AdminRoute[] = [
    {
      method: 'POST',
      path: '/capacity',
      summary: `turn capacity off or on: {"${c.typeField}", "zone" (or "*"), "market": ${markets}, "available": true | false}`,
      handle: (raw) => {
        const b = capacityBody(c, raw);
        c.setCapacity(b.instanceType, b.zone, b.market, b.available);
        return {
          status: 200,
          body: { [c.typeField]: b.instanceType, zone: b.zone, market: b.market, available: b.available },
        };
      },
    },
  ];
  const interrupt = c.interrupt?.bind(c);
  if (interrupt)
    routes.push({
      method: 'POST',
      path: '/interrupt',
      summary: 'reclaim a spot or preemptible instance with the cloud\'s notice: {"instanceId"}',
      handle: (raw) => {
        const instanceId = adminString(adminObject(raw), 'instanceId');
        try {
          interrupt(instanceId);
        } catch (err) {
          throw new AdminRequestError(404, err instanceof Error ? err.message : String(err));
        }
        return { status: 202, body: { instanceId, interrupted: true } };
      },
    });
  return routes;
}
