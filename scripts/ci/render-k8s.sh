#!/usr/bin/env bash
# Renders the plain manifests of k8s/gateway.yaml from the Helm chart (with k8s/values.yaml), for kubectl users.
#
#   scripts/ci/render-k8s.sh           rewrite k8s/gateway.yaml
#   scripts/ci/render-k8s.sh --check   fail when k8s/gateway.yaml differs from a fresh render (CI's drift check)
#
# The output goes through prettier, as every YAML file of the repository does (npm run lint).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HELM="${HELM:-${GATEWAY_TOOLS_DIR:-$ROOT/.tools}/bin/helm}"
TARGET="$ROOT/k8s/gateway.yaml"

[[ -x "$HELM" ]] || {
  echo "render-k8s: no helm at $HELM (scripts/tools/install.sh helm)" >&2
  exit 1
}

render() {
  {
    echo "# Rendered from charts/gateway with k8s/values.yaml by scripts/ci/render-k8s.sh: do not edit by hand."
    echo "# Apply after k8s/namespace.yaml and the Secrets named in k8s/values.yaml (docs/deploy.md)."
    "$HELM" template gateway "$ROOT/charts/gateway" --namespace gateway --values "$ROOT/k8s/values.yaml" --skip-tests
  } | "$ROOT/node_modules/.bin/prettier" --stdin-filepath "$TARGET"
}

if [[ "${1:-}" == "--check" ]]; then
  fresh="$(mktemp)"
  trap 'rm -f "$fresh"' EXIT
  render >"$fresh"
  if ! diff -u "$TARGET" "$fresh"; then
    echo "render-k8s: k8s/gateway.yaml is out of date with charts/gateway; run scripts/ci/render-k8s.sh" >&2
    exit 1
  fi
  echo "render-k8s: k8s/gateway.yaml matches the chart"
else
  render >"$TARGET"
  echo "render-k8s: wrote k8s/gateway.yaml"
fi
