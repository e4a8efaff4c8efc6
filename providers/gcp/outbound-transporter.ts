// The HTTP transport of Google's auth library and of the Compute REST calls made through it. The REST
// transport hands every request gax's own keep-alive agents, which neither proxy nor trust extra CAs (and
// make gaxios skip HTTPS_PROXY), so the agents are replaced after the request is prepared, by an interceptor:
// token requests and Compute calls then take the same route, chosen per connection by lib's OutboundHttp.
import { gaxios } from 'google-auth-library';
import type { OutboundAgents } from '../../lib/index.js';

export function outboundTransporter(agents: OutboundAgents): gaxios.Gaxios {
  const transporter = new gaxios.Gaxios();
  transporter.interceptors.request.add({
    resolved: async (config) => {
      config.agent = (url: URL) => agents.forUrl(url);
      return config;
    },
  });
  return transporter;
}
