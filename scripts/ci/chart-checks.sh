#!/usr/bin/env bash
# Offline checks of the Kubernetes delivery (no cluster, no Docker engine):
#   1. helm lint --strict and helm template of charts/gateway with every ci/*-values.yaml;
#   2. the chart's default values render every component; emptied Secret names and NATS fail with the list of what
#      is missing;
#   3. every rendered object, and the plain manifests of k8s/, validated with kubeconform -strict against the
#      Kubernetes JSON schemas built from the k8s.io/kubernetes OpenAPI document (scripts/tools/install.sh);
#   4. k8s/gateway.yaml is what the chart renders (drift check);
#   5. skaffold.yaml with skaffold itself: `skaffold diagnose` parses every profile strictly, and `skaffold render
#      --offline` of the dev and production-like profiles (with stand-in build results, no Docker) must wire each
#      artifact's image into the chart and give manifests that kubeconform accepts. skaffold takes ~15 minutes to
#      build on a fresh machine (cached in .tools after); SKIP_SKAFFOLD=1 leaves this to
#      test/deploy/skaffold.structure.test.ts, which always runs.
# The policy (non-root, resources, probes, read-only root, pinned tags) and Dockerfile tests are jest tests under
# test/deploy, run by npm test.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
bash scripts/tools/install.sh helm kubeconform k8s-schemas
[[ "${SKIP_SKAFFOLD:-}" == 1 ]] || bash scripts/tools/install.sh skaffold

TOOLS="${GATEWAY_TOOLS_DIR:-$ROOT/.tools}"
BIN="$TOOLS/bin"
CHART="charts/gateway"
K8S_VERSION="$(sed -n 's/^K8S_SCHEMAS_VERSION="v\(.*\)"$/\1/p' scripts/tools/install.sh)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
log() { printf '[chart-checks] %s\n' "$*"; }

for values in "$CHART"/ci/*-values.yaml; do
  name="$(basename "$values" -values.yaml)"
  log "helm lint --strict / helm template: $values"
  "$BIN/helm" lint --strict --quiet "$CHART" --values "$values"
  "$BIN/helm" template gateway "$CHART" --namespace gateway --values "$values" >"$WORK/$name.yaml"
done

log "the default values must render the whole product (portal-api and oauth-server included)"
"$BIN/helm" lint --strict --quiet "$CHART"
"$BIN/helm" template gateway "$CHART" --namespace gateway >"$WORK/defaults.yaml"
for component in edge-auth mcp-server quota-actor provider-proxy oauth-server portal-api; do
  grep -q "^  name: gateway-$component$" "$WORK/defaults.yaml" || {
    log "error: the default values do not render $component"
    exit 1
  }
done

log "emptied Secret names and NATS must be refused with what is missing"
if "$BIN/helm" template gateway "$CHART" --set nats.url= --set secrets.mongodb.existingSecret= \
  --set secrets.oauthSigning.existingSecret= >/dev/null 2>"$WORK/missing.err"; then
  log "error: the chart rendered without NATS and Secrets"
  exit 1
fi
for expected in 'secrets.mongodb.existingSecret is required' 'secrets.oauthSigning.existingSecret is required by oauth-server' \
  'nats.url (or nats.existingSecret) is required'; do
  grep -qF "$expected" "$WORK/missing.err" || {
    cat "$WORK/missing.err" >&2
    exit 1
  }
done

# ServiceMonitor and PrometheusRule are prometheus-operator CRDs without a schema in the Kubernetes OpenAPI document
# (test/deploy checks them).
log "kubeconform -strict (Kubernetes $K8S_VERSION schemas)"
"$BIN/kubeconform" -strict -summary -kubernetes-version "$K8S_VERSION" \
  -schema-location "$TOOLS/k8s-schemas" -skip ServiceMonitor,PrometheusRule \
  "$WORK"/*.yaml k8s/namespace.yaml k8s/gateway.yaml k8s/dev/*.yaml

log "k8s/ drift"
bash scripts/ci/render-k8s.sh --check

if [[ "${SKIP_SKAFFOLD:-}" != 1 ]]; then
  # No usage reports, no update check: skaffold reads its global config from $HOME/.skaffold.
  mkdir -p "$WORK/home/.skaffold"
  printf 'global:\n  collect-metrics: false\n  update-check: false\n  survey:\n    disable-prompt: true\nkubeContexts: []\n' \
    >"$WORK/home/.skaffold/config"
  skaffold() { HOME="$WORK/home" PATH="$BIN:$PATH" "$BIN/skaffold" "$@" --update-check=false; }
  digest="sha256:$(printf '0%.0s' {1..64})"
  builds=""
  for dockerfile in services/*/Dockerfile; do
    name="$(basename "$(dirname "$dockerfile")")"
    builds+="${builds:+,}{\"imageName\":\"$name\",\"tag\":\"registry.example.com/gateway/$name:ci@$digest\"}"
  done
  echo "{\"builds\":[$builds]}" >"$WORK/builds.json"
  for profile in dev production-like; do
    log "skaffold diagnose / render --offline: profile $profile"
    skaffold diagnose --yaml-only --profile "$profile" >/dev/null
    skaffold render --offline=true --digest-source=tag --build-artifacts "$WORK/builds.json" --profile "$profile" \
      >"$WORK/skaffold-$profile.yaml"
    if grep -E '^\s+image: "?registry\.example\.com/gateway/' "$WORK/skaffold-$profile.yaml" | grep -v "@$digest" >&2; then
      log "error: an image of profile $profile does not come from its skaffold artifact"
      exit 1
    fi
  done
  grep -q 'gateway/platform-sandbox' "$WORK/skaffold-dev.yaml" || {
    log "error: the dev profile does not deploy the platform sandbox"
    exit 1
  }
  if grep -q 'platform-sandbox' "$WORK/skaffold-production-like.yaml"; then
    log "error: the production-like profile deploys the platform sandbox"
    exit 1
  fi
  "$BIN/kubeconform" -strict -summary -kubernetes-version "$K8S_VERSION" \
    -schema-location "$TOOLS/k8s-schemas" -skip ServiceMonitor,PrometheusRule "$WORK"/skaffold-*.yaml
fi
log "ok"
