import type { McpTier } from '@gateway/store';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CALL_ENDPOINT, registerCallEndpoint } from './call-endpoint.tool';
import { CHECK_QUOTA, registerCheckQuota } from './check-quota.tool';
import { DESCRIBE_ENDPOINT, registerDescribeEndpoint } from './describe-endpoint.tool';
import { FIND_ENDPOINT, registerFindEndpoint } from './find-endpoint.tool';
import { LIST_ENDPOINTS, registerListEndpoints } from './list-endpoints.tool';
import type { RequestContext, ToolDeps } from './tool-context';

export interface ToolRegistration {
  name: string;
  register(server: McpServer, deps: ToolDeps, ctx: RequestContext): void;
}

/** The basic tier (spec 1, 4.3): native endpoints and raw data. */
const BASIC: readonly ToolRegistration[] = [
  { name: LIST_ENDPOINTS, register: registerListEndpoints },
  { name: DESCRIBE_ENDPOINT, register: registerDescribeEndpoint },
  { name: FIND_ENDPOINT, register: registerFindEndpoint },
  { name: CALL_ENDPOINT, register: registerCallEndpoint },
  { name: CHECK_QUOTA, register: registerCheckQuota },
];

/**
 * The tools each tier adds to the tiers below it (spec 1: moving to a higher plan adds tools without
 * reconfiguration). Only the basic tier is specified; the normalised and data assistant tiers add none yet.
 */
const ADDED_BY_TIER: Readonly<Record<McpTier, readonly ToolRegistration[]>> = {
  basic: BASIC,
  normalised: [],
  data_assistant: [],
};

const TIER_ORDER: readonly McpTier[] = ['basic', 'normalised', 'data_assistant'];

/** The tool set of a plan's MCP tier, chosen again for every request; an unknown tier has none. */
export function toolsForTier(tier: string): readonly ToolRegistration[] {
  const rank = TIER_ORDER.indexOf(tier as McpTier);
  if (rank < 0) return [];
  return TIER_ORDER.slice(0, rank + 1).flatMap((name) => ADDED_BY_TIER[name]);
}
