#!/usr/bin/env bash
# Time-boxed Jazzer.js runs of the fuzz targets (fuzz/README.md).
#   fuzz/run.sh                 every target, FUZZ_SECONDS (default 30) each
#   fuzz/run.sh allowlist cidr  only these
# New interesting inputs go to a scratch corpus (FUZZ_WORK, default $TMPDIR/gateway-fuzz), never into the
# committed seeds; crash inputs go to FUZZ_ARTIFACTS (default reports/fuzz, git-ignored). Exits non-zero when a
# target finds a crash or a property violation. FUZZ_SEED fixes libFuzzer's seed, so two runs of the same length
# on the same corpus try the same inputs (CI sets it; a developer's run explores with a new seed each time).
set -uo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH="${FUZZ_SECONDS:-30}"
WORK="${FUZZ_WORK:-${TMPDIR:-/tmp}/gateway-fuzz}"
ARTIFACTS="${FUZZ_ARTIFACTS:-reports/fuzz}"
SEED_ARGS=()
[ -z "${FUZZ_SEED:-}" ] || SEED_ARGS=(-seed="$FUZZ_SEED")
JAZZER="${JAZZER:-node_modules/.bin/jazzer}"
ALL=(allowlist query-filter adapters decision-codec mcp-truncate redirect-uri cidr envelope-code)
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL[@]}")

# Jazzer.js 4.0.0's prebuilt addon wants glibc 2.38; Debian 12 has 2.36 (see scripts/glibc-compat.cjs).
node fuzz/scripts/glibc-compat.cjs "$(dirname "$(node -p "require.resolve('@jazzer.js/fuzzer/package.json')")")/prebuilds/fuzzer-$(node -p 'process.platform + "-" + process.arch').node" || exit 1

mkdir -p "$ARTIFACTS"
failed=()
for target in "${TARGETS[@]}"; do
  [ -f "fuzz/targets/$target.fuzz.ts" ] || { echo "no such target: $target" >&2; exit 2; }
  mkdir -p "$WORK/$target"
  echo "=== $target (${SECONDS_EACH}s)"
  FUZZ_TARGET="$target" NODE_OPTIONS="${NODE_OPTIONS:-} --conditions=development --import tsx" \
    "$JAZZER" fuzz/entry.cjs "$WORK/$target" "fuzz/corpus/$target" --sync \
    -i "$PWD/libs/" -i "$PWD/services/" -i "$PWD/fuzz/targets/" \
    -- -max_total_time="$SECONDS_EACH" -timeout=10 -max_len=4096 -artifact_prefix="$ARTIFACTS/$target-" \
    -print_final_stats=1 "${SEED_ARGS[@]}" 2>&1 | tail -n 40
  status=${PIPESTATUS[0]}
  [ "$status" -eq 0 ] || failed+=("$target")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]} (inputs under $ARTIFACTS/)" >&2
  exit 1
fi
echo "fuzz: ${#TARGETS[@]} target(s), no finding"
