#!/usr/bin/env bash
# Installs the Node.js the images run (NODE_IMAGE in scripts/ci/dockerfiles.ts) into <repo>/.tools/node-<version>,
# from the npm registry's node-linux-<arch> package, and prints its bin directory, so that a benchmark can run on the
# images' runtime rather than the machine's:
#
#   PATH="$(bash scripts/tools/image-node.sh):$PATH" npm run bench:perf -- --telemetry
#   bash scripts/tools/image-node.sh --version     the version it would install, and nothing else
#
# Reinstalled only when the version changes. GATEWAY_TOOLS_DIR overrides the install root (default <repo>/.tools).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS_DIR="${GATEWAY_TOOLS_DIR:-$ROOT/.tools}"

die() {
  printf '[image-node] error: %s\n' "$*" >&2
  exit 1
}

version="$(sed -n "s/^export const NODE_IMAGE = 'node:\([0-9][0-9.]*\)-.*';$/\1/p" "$ROOT/scripts/ci/dockerfiles.ts")"
[[ -n "$version" ]] || die "no NODE_IMAGE = 'node:<version>-...' in scripts/ci/dockerfiles.ts"
if [[ "${1:-}" == --version ]]; then
  echo "$version"
  exit 0
fi
[[ $# -eq 0 ]] || die "usage: scripts/tools/image-node.sh [--version]"

case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "no node-linux package for $(uname -m)" ;;
esac

dir="$TOOLS_DIR/node-$version"
if [[ ! -x "$dir/bin/node" || "$("$dir/bin/node" --version 2>/dev/null)" != "v$version" ]]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  printf '[image-node] fetching node-linux-%s@%s from the npm registry\n' "$arch" "$version" >&2
  (cd "$work" && npm pack --silent "node-linux-$arch@$version" >/dev/null) || die "npm pack node-linux-$arch@$version failed"
  tar -xzf "$work"/node-linux-"$arch"-"$version".tgz -C "$work"
  [[ "$("$work/package/bin/node" --version)" == "v$version" ]] || die "the package's node is not v$version"
  mkdir -p "$TOOLS_DIR"
  rm -rf "$dir"
  mv "$work/package" "$dir"
fi
echo "$dir/bin"
