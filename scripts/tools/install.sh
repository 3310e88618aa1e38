#!/usr/bin/env bash
# Installs pinned, Go-built developer tools into <repo>/.tools/bin (git-ignored).
#
#   scripts/tools/install.sh              ferretdb only (the one the integration tests need)
#   scripts/tools/install.sh all          every tool below
#   scripts/tools/install.sh k6 helm      the named tools (gubernator: the limiter baseline of npm run bench)
#   scripts/tools/install.sh helm kubeconform k8s-schemas   what scripts/ci/chart-checks.sh needs
#
# A tool is skipped when its binary exists and its stamp file (.tools/bin/.<tool>.version) names the
# pinned version. GATEWAY_TOOLS_DIR overrides the install root (default <repo>/.tools).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS_DIR="${GATEWAY_TOOLS_DIR:-$ROOT/.tools}"
BIN_DIR="$TOOLS_DIR/bin"
SRC_DIR="$TOOLS_DIR/src"
MIN_GO_MINOR=22

# Pins. nats-server: v2.10.29 is the newest 2.10 patch the Go module proxy serves (v2.10.30+ answer 403).
FERRETDB_VERSION="v1.24.2"
NATS_SERVER_VERSION="v2.10.29"
K6_VERSION="v1.8.1"
HELM_VERSION="v3.22.0"
# gubernator: the per-key rate-limiter baseline of `npm run bench` (docs/benchmarks.md). The module proxy answers
# 403 "not available" for v2.19.1 (and every release after v2.13.0); the newest version it serves is then built
# instead, and the stamp and the benchmark report name the version that was actually built.
GUBERNATOR_VERSION="v2.19.1"
GUBERNATOR_FALLBACK_VERSION="v2.13.0"
# kubeconform validates rendered manifests offline against k8s-schemas (scripts/ci/chart-checks.sh).
KUBECONFORM_VERSION="v0.8.0"
# k8s-schemas: JSON schemas of every Kubernetes kind, converted by scripts/ci/k8s-json-schemas.ts from the
# api/openapi-spec/swagger.json of the k8s.io/kubernetes Go module at this version (the minor that helm's
# client-go assumes; the module proxy refuses the zips of v1.37.1 and later patches).
K8S_SCHEMAS_VERSION="v1.37.0"
# skaffold: only to validate skaffold.yaml; large (several minutes to build), so never part of all.
SKAFFOLD_VERSION="v2.16.1"

ALL_TOOLS=(ferretdb nats-server k6 helm kubeconform k8s-schemas)
# Built only when named: the module proxy may refuse them, and nothing but a benchmark baseline (gubernator) or
# an optional check (skaffold) needs them.
EXTRA_TOOLS=(gubernator skaffold)

log() { printf '[tools] %s\n' "$*"; }
die() {
  printf '[tools] error: %s\n' "$*" >&2
  exit 1
}

usage() {
  cat <<EOF
usage: scripts/tools/install.sh [all | tool...]
tools: ${ALL_TOOLS[*]} ${EXTRA_TOOLS[*]}
  (no argument)  ferretdb only
  all            ${ALL_TOOLS[*]} (nats-server is skipped when one is already installed on this machine)
  gubernator     the limiter baseline of npm run bench (not part of all)
  skaffold       validates skaffold.yaml (not part of all: a long build)
  k8s-schemas    Kubernetes JSON schemas for kubeconform, into $TOOLS_DIR/k8s-schemas (needs npm ci first)
installs into: $BIN_DIR
EOF
}

tool_version() {
  case "$1" in
    ferretdb) echo "$FERRETDB_VERSION" ;;
    nats-server) echo "$NATS_SERVER_VERSION" ;;
    k6) echo "$K6_VERSION" ;;
    helm) echo "$HELM_VERSION" ;;
    gubernator) echo "$GUBERNATOR_VERSION" ;;
    kubeconform) echo "$KUBECONFORM_VERSION" ;;
    k8s-schemas) echo "$K8S_SCHEMAS_VERSION" ;;
    skaffold) echo "$SKAFFOLD_VERSION" ;;
  esac
}

# Where a tool lives once installed: a binary in $BIN_DIR, except the schema set (a directory).
tool_path() {
  case "$1" in
    k8s-schemas) echo "$TOOLS_DIR/k8s-schemas/$K8S_SCHEMAS_VERSION-standalone-strict" ;;
    *) echo "$BIN_DIR/$1" ;;
  esac
}

# What each tool is for, so that the "Go is missing" message can name the alternative.
tool_alternative() {
  case "$1" in
    ferretdb) echo "set MONGODB_URI to an existing MongoDB-compatible server" ;;
    nats-server) echo "install nats-server (e.g. apt-get install nats-server) or set NATS_URL to a server with JetStream" ;;
    k6) echo "install k6 from https://grafana.com/docs/k6/latest/set-up/install-k6/" ;;
    helm) echo "install helm from https://helm.sh/docs/intro/install/" ;;
    gubernator) echo "run the benchmark with --only gateway or --only accuracy (gubernator is only the limiter baseline)" ;;
    kubeconform) echo "install kubeconform from https://github.com/yannh/kubeconform/releases" ;;
    k8s-schemas) echo "point kubeconform at a copy of the kubernetes-json-schema sets (KUBECONFORM_SCHEMAS=<dir>)" ;;
    skaffold) echo "install skaffold from https://skaffold.dev/docs/install/ (skaffold.yaml is also checked by test/deploy)" ;;
  esac
}

require_go() {
  local tool="$1" alternative
  alternative="$(tool_alternative "$tool")"
  if ! command -v go >/dev/null 2>&1; then
    die "Go is not installed, so $tool cannot be built: install Go >= 1.$MIN_GO_MINOR (https://go.dev/dl/) or $alternative"
  fi
  local version minor
  version="$(go env GOVERSION 2>/dev/null || true)"
  minor="$(printf '%s' "$version" | sed -n 's/^go1\.\([0-9][0-9]*\).*/\1/p')"
  if [[ -z "$minor" || "$minor" -lt "$MIN_GO_MINOR" ]]; then
    die "found ${version:-an unknown Go version}, $tool needs Go >= 1.$MIN_GO_MINOR: install a newer Go (https://go.dev/dl/) or $alternative"
  fi
}

stamp_file() { echo "$BIN_DIR/.$1.version"; }

is_current() {
  local tool="$1" version="$2" stamp
  stamp="$(stamp_file "$tool")"
  [[ -x "$(tool_path "$tool")" && -f "$stamp" && "$(cat "$stamp")" == "$version" ]]
}

# A ferretdb binary built before stamps existed reports its version itself; adopt it instead of rebuilding.
adopt_unstamped() {
  local tool="$1" version="$2"
  [[ "$tool" == ferretdb && -x "$BIN_DIR/$tool" && ! -f "$(stamp_file "$tool")" ]] || return 1
  "$BIN_DIR/$tool" --version 2>/dev/null | grep -qx "version: $version" || return 1
  echo "$version" >"$(stamp_file "$tool")"
}

# Downloads the module source, copies it somewhere writable and builds from there: the fallback when
# `go install mod@version` is refused, and the only way for ferretdb (see prepare_source).
build_from_source() {
  local tool="$1" module="$2" version="$3" package="$4" ldflags="${5:-}" json module_dir work
  log "$tool: downloading $module@$version source"
  json="$(go mod download -json "$module@$version")" ||
    die "$tool: go mod download $module@$version failed: $(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Error": "\(.*\)",\{0,1\}$/\1/p')"
  module_dir="$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  [[ -n "$module_dir" && -d "$module_dir" ]] || die "$tool: go mod download printed no source directory: $json"
  work="$SRC_DIR/$tool@$version"
  rm -rf "$work"
  mkdir -p "$SRC_DIR"
  cp -r "$module_dir" "$work"
  chmod -R u+w "$work"
  prepare_source "$tool" "$version" "$work"
  log "$tool: building $package in $work (this can take a few minutes)"
  (cd "$work" && GOFLAGS="${GOFLAGS:-} -buildvcs=false" go build -trimpath -ldflags="$ldflags" -o "$BIN_DIR/.$tool.partial" "$package") ||
    die "$tool: go build failed (source kept in $work)"
  mv -f "$BIN_DIR/.$tool.partial" "$BIN_DIR/$tool"
}

prepare_source() {
  local tool="$1" version="$2" work="$3"
  if [[ "$tool" == ferretdb ]]; then
    # The release build writes this file; without it the binary panics at start.
    echo "$version" >"$work/build/version/version.txt"
  fi
}

# Link-time settings the upstream release builds pass (from their Makefiles); without them the binary works
# but reports wrong facts about itself.
tool_ldflags() {
  local tool="$1" module="$2" version="$3" gomod client_go major minor
  if [[ "$tool" == helm ]]; then
    # Helm's Makefile derives the Kubernetes version that `helm template` and `helm lint` assume
    # (.Capabilities.KubeVersion, API deprecation checks) from its client-go; unset, both default to 1.20.
    gomod="$(go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
    client_go="$(sed -n 's/^[[:space:]]*k8s\.io\/client-go v\([0-9][0-9]*\)\.\([0-9][0-9]*\)\..*/\1 \2/p' "$gomod" | head -n 1)"
    [[ -n "$client_go" ]] || die "helm: cannot find the k8s.io/client-go version in $gomod"
    read -r major minor <<<"$client_go"
    major=$((major + 1))
    printf '%s ' "-X helm.sh/helm/v3/internal/version.version=$version" \
      "-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=$major" \
      "-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$minor" \
      "-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=$major" \
      "-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$minor"
  fi
}

go_install_or_build() {
  local tool="$1" module="$2" version="$3" package="$4" path staging built ldflags
  path="$module"
  [[ "$package" == "." ]] || path="$module/${package#./}"
  ldflags="$(tool_ldflags "$tool" "$module" "$version")"
  staging="$(mktemp -d "$BIN_DIR/.go-install.XXXXXX")"
  log "$tool: go install $path@$version"
  # go install names the binary after the last path element that is not a major version (…/v2).
  if GOBIN="$staging" go install -trimpath -ldflags="$ldflags" "$path@$version"; then
    built="$(find "$staging" -maxdepth 1 -type f -perm -u+x | head -n 1)"
    if [[ -n "$built" ]]; then
      mv -f "$built" "$BIN_DIR/$tool"
      rm -rf "$staging"
      return 0
    fi
  fi
  rm -rf "$staging"
  log "$tool: go install was refused; falling back to download + build"
  build_from_source "$tool" "$module" "$version" "$package" "$ldflags"
}

# The Kubernetes OpenAPI document ships in the k8s.io/kubernetes module; only that file is read.
install_k8s_schemas() {
  local version="$1" json module_dir out
  command -v node >/dev/null 2>&1 || die "k8s-schemas: node is needed to convert the OpenAPI document"
  [[ -d "$ROOT/node_modules/tsx" ]] || die "k8s-schemas: run npm ci first (the converter runs through tsx)"
  log "k8s-schemas: downloading k8s.io/kubernetes@$version (for api/openapi-spec/swagger.json)"
  json="$(go mod download -json "k8s.io/kubernetes@$version")" ||
    die "k8s-schemas: go mod download k8s.io/kubernetes@$version failed: $(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Error": "\(.*\)",\{0,1\}$/\1/p')"
  module_dir="$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  [[ -f "$module_dir/api/openapi-spec/swagger.json" ]] || die "k8s-schemas: no api/openapi-spec/swagger.json in $module_dir"
  out="$(tool_path k8s-schemas)"
  rm -rf "$out"
  node --import tsx "$ROOT/scripts/ci/k8s-json-schemas.ts" "$module_dir/api/openapi-spec/swagger.json" "$out" ||
    die "k8s-schemas: conversion failed"
}

install_gubernator() {
  # A subshell, because a refused version ends go_install_or_build with die.
  if (go_install_or_build gubernator github.com/gubernator-io/gubernator/v2 "$GUBERNATOR_VERSION" ./cmd/gubernator); then
    GUBERNATOR_BUILT="$GUBERNATOR_VERSION"
    return 0
  fi
  log "gubernator: $GUBERNATOR_VERSION cannot be had; building $GUBERNATOR_FALLBACK_VERSION, the newest the module proxy serves"
  go_install_or_build gubernator github.com/gubernator-io/gubernator/v2 "$GUBERNATOR_FALLBACK_VERSION" ./cmd/gubernator
  GUBERNATOR_BUILT="$GUBERNATOR_FALLBACK_VERSION"
}

install_tool() {
  local tool="$1" version started
  version="$(tool_version "$tool")"
  if [[ "$tool" == gubernator ]] && is_current gubernator "$GUBERNATOR_FALLBACK_VERSION"; then
    log "gubernator $GUBERNATOR_FALLBACK_VERSION (fallback for $version): already installed at $(tool_path gubernator)"
    return 0
  fi
  if is_current "$tool" "$version" || adopt_unstamped "$tool" "$version"; then
    log "$tool $version: already installed at $(tool_path "$tool")"
    return 0
  fi
  require_go "$tool"
  mkdir -p "$BIN_DIR"
  started=$SECONDS
  case "$tool" in
    ferretdb) build_from_source ferretdb github.com/FerretDB/FerretDB "$version" ./cmd/ferretdb ;;
    nats-server) go_install_or_build nats-server github.com/nats-io/nats-server/v2 "$version" . ;;
    k6) go_install_or_build k6 go.k6.io/k6 "$version" . ;;
    helm) go_install_or_build helm helm.sh/helm/v3 "$version" ./cmd/helm ;;
    gubernator)
      install_gubernator
      version="$GUBERNATOR_BUILT"
      ;;
    kubeconform) go_install_or_build kubeconform github.com/yannh/kubeconform "$version" ./cmd/kubeconform ;;
    k8s-schemas) install_k8s_schemas "$version" ;;
    skaffold)
      go_install_or_build skaffold github.com/GoogleContainerTools/skaffold/v2 "$version" ./cmd/skaffold
      # Its examples hold package.json files that jest's module map (rootDir: the repository) trips over.
      rm -rf "$SRC_DIR/skaffold@$version"
      ;;
  esac
  echo "$version" >"$(stamp_file "$tool")"
  log "$tool $version: installed at $(tool_path "$tool") in $((SECONDS - started)) s"
}

# Two callers (say the test harness and the local stack) may build the same tool at once.
install_locked() {
  local tool="$1"
  mkdir -p "$BIN_DIR"
  if command -v flock >/dev/null 2>&1; then
    (
      flock 9
      install_tool "$tool"
    ) 9>"$BIN_DIR/.$tool.lock"
  else
    install_tool "$tool"
  fi
}

system_nats_server() {
  command -v nats-server 2>/dev/null || { [[ -x /usr/sbin/nats-server ]] && echo /usr/sbin/nats-server; } || true
}

main() {
  local tools=() tool existing
  if [[ $# -eq 0 ]]; then
    tools=(ferretdb)
  fi
  for tool in "$@"; do
    case "$tool" in
      -h | --help)
        usage
        return 0
        ;;
      all)
        existing="$(system_nats_server)"
        for t in "${ALL_TOOLS[@]}"; do
          if [[ "$t" == nats-server && -n "$existing" ]]; then
            log "nats-server: using $existing; skipped (run 'install.sh nats-server' to build $NATS_SERVER_VERSION)"
            continue
          fi
          tools+=("$t")
        done
        ;;
      ferretdb | nats-server | k6 | helm | gubernator | kubeconform | k8s-schemas | skaffold) tools+=("$tool") ;;
      *)
        usage >&2
        die "unknown tool '$tool'"
        ;;
    esac
  done
  for tool in "${tools[@]}"; do
    install_locked "$tool"
  done
}

main "$@"
