#!/usr/bin/env bash
# The MCP conformance scenarios server-initialize, ping, tools-list and dns-rebinding-protection against a real
# mcp-server (see mcp-conformance.ts). Arguments, when given, replace the list of scenarios.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec node --conditions=development --import tsx test/conformance/mcp-conformance.ts "$@"
