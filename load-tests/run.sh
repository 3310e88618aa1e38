#!/usr/bin/env bash
# npm run load [-- --smoke]: the k6 hot-path test (load-tests/hot-path.js) against the local stack.
#
#   npm run load               full profile: warm-up, then 60 s of both scenarios (about 2-3 minutes in all)
#   npm run load -- --smoke    smoke profile for CI: fewer keys, lower rates, 15 s (LOAD_PROFILE=smoke does the same)
#
# Uses the stack of .local/stack.json when it answers (npm start); otherwise starts one itself on free ports and
# stops it at exit. Installs k6 with scripts/tools/install.sh when it is missing, seeds the keys with
# load-tests/prepare.ts, runs k6, writes its summary to reports/load-<timestamp>.json and prints the figures.
# Exits non-zero when a threshold fails (k6 exits 99) or anything before it fails.
#
# Every setting of the profiles below can be overridden from the environment (see hot-path.js and prepare.ts):
# DURATION, HOT_RATE, MANY_RATE, MANY_KEYS, WARMUP_RATE, P95_MS, P99_MS, MAX_ERROR_RATE, HOT_429_TOLERANCE,
# MANY_429_MAX, LOAD_KEYS, LOAD_CUSTOMERS, LOAD_MANY_PLAN, LOAD_HOT_PLAN.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TOOLS_BIN="${GATEWAY_TOOLS_DIR:-$ROOT/.tools}/bin"
# STACK_LOCAL_DIR (read by scripts/stack/main.ts too) moves the stack's state, and these files, out of .local.
LOCAL_DIR="${STACK_LOCAL_DIR:-$ROOT/.local}"
STACK_FILE="$LOCAL_DIR/stack.json"
KEYS_FILE="$LOCAL_DIR/load-keys.json"
STACK_START_TIMEOUT_S="${STACK_START_TIMEOUT_S:-600}"

log() { printf '[load] %s\n' "$*"; }
die() {
  printf '[load] error: %s\n' "$*" >&2
  exit 1
}

profile="${LOAD_PROFILE:-full}"
for arg in "$@"; do
  case "$arg" in
    --smoke) profile=smoke ;;
    --full) profile=full ;;
    -h | --help)
      sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) die "unknown argument '$arg' (use --smoke or --full)" ;;
  esac
done

# Profiles. Both keep each many key at or below 0.1 request/s, far under its plan's rate (growth: 25/s), and drive
# the hot key (trial: 5/s, burst 10) at 4x its rate. The smoke fits the local stack on 2 shared cores; the full
# profile's 1,000 keys are more than FerretDB on SQLite carries (docs/development.md, "Load tests").
case "$profile" in
  smoke)
    : "${DURATION:=15s}" "${HOT_RATE:=20}" "${MANY_RATE:=10}" "${LOAD_KEYS:=100}" "${WARMUP_RATE:=10}"
    : "${P95_MS:=500}" "${P99_MS:=1000}"
    ;;
  full)
    : "${DURATION:=60s}" "${HOT_RATE:=20}" "${MANY_RATE:=20}" "${LOAD_KEYS:=1000}" "${WARMUP_RATE:=20}"
    : "${P95_MS:=250}" "${P99_MS:=500}"
    ;;
  *) die "LOAD_PROFILE must be smoke or full, got '$profile'" ;;
esac
: "${MANY_KEYS:=$LOAD_KEYS}"
export LOAD_KEYS LOAD_KEYS_FILE="$KEYS_FILE" LOAD_STACK_FILE="$STACK_FILE" LOAD_SECRETS_FILE="$LOCAL_DIR/secrets.json"

# k6: the project's pinned build (scripts/tools/install.sh is quick when it is already there).
bash scripts/tools/install.sh k6
K6="$TOOLS_BIN/k6"
[[ -x "$K6" ]] || die "k6 is not at $K6 after scripts/tools/install.sh k6"

# Answers 0 when the stack file names a REST address whose /healthz answers 200 (node: no curl or jq needed).
stack_answers() {
  [[ -f "$STACK_FILE" ]] || return 1
  node -e '
    const { urls } = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    fetch(new URL("/healthz", urls.rest), { signal: AbortSignal.timeout(2000) })
      .then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1));
  ' "$STACK_FILE" 2>/dev/null
}

stack_pid=""
stop_stack() {
  [[ -n "$stack_pid" ]] || return 0
  if kill -0 "$stack_pid" 2>/dev/null; then
    log "stopping the stack this run started (pid $stack_pid)"
    kill -TERM "$stack_pid" 2>/dev/null || true
    for _ in $(seq 1 60); do
      kill -0 "$stack_pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -0 "$stack_pid" 2>/dev/null && kill -KILL "$stack_pid" 2>/dev/null
  fi
  stack_pid=""
}
trap stop_stack EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if stack_answers; then
  log "using the running stack of $STACK_FILE"
else
  mkdir -p "$LOCAL_DIR/logs"
  stack_log="$LOCAL_DIR/logs/load-stack.out"
  log "no stack answers at $STACK_FILE: starting one on free ports (output in $stack_log)"
  # FerretDB on the machine's PostgreSQL (the stack falls back to SQLite when none answers): on SQLite every update
  # and every query on anything but `_id` reads the whole collection, and the full profile's 1,000 keys are more
  # than that carries (docs/development.md, "Load tests"). STACK_FERRETDB_POSTGRESQL_URL names another server;
  # `none` keeps SQLite; MONGODB_URI wins over both. The stack's output says which it used.
  export STACK_FERRETDB_POSTGRESQL_URL="${STACK_FERRETDB_POSTGRESQL_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
  started_at=$(date +%s)
  STACK_PORTS=ephemeral node --conditions=development --import tsx scripts/stack/main.ts >"$stack_log" 2>&1 &
  stack_pid=$!
  # stack.json is written once every service is up and the demo is seeded; an older file does not count.
  until [[ -f "$STACK_FILE" && $(stat -c %Y "$STACK_FILE") -ge $started_at ]] && stack_answers; do
    if ! kill -0 "$stack_pid" 2>/dev/null; then
      tail -n 30 "$stack_log" >&2 || true
      stack_pid=""
      die "the stack exited before it answered"
    fi
    if (($(date +%s) - started_at > STACK_START_TIMEOUT_S)); then
      tail -n 30 "$stack_log" >&2 || true
      die "the stack did not answer within ${STACK_START_TIMEOUT_S} s"
    fi
    sleep 1
  done
  log "stack is up after $(($(date +%s) - started_at)) s"
fi

node --conditions=development --import tsx load-tests/prepare.ts

mkdir -p reports
summary="reports/load-$(date -u +%Y%m%dT%H%M%SZ).json"
log "profile $profile: DURATION=$DURATION HOT_RATE=$HOT_RATE MANY_RATE=$MANY_RATE MANY_KEYS=$MANY_KEYS WARMUP_RATE=$WARMUP_RATE"
# --address: k6's own REST API on a free loopback port, so parallel k6 runs on this machine do not collide.
k6_args=(run --summary-export "$summary" --address 127.0.0.1:0)
# Progress bars are noise in CI logs.
if [[ -n "${CI:-}" || ! -t 1 ]]; then k6_args+=(--quiet); fi
set +e
"$K6" "${k6_args[@]}" \
  -e KEYS_FILE="$KEYS_FILE" -e DURATION="$DURATION" -e HOT_RATE="$HOT_RATE" -e MANY_RATE="$MANY_RATE" \
  -e MANY_KEYS="$MANY_KEYS" -e WARMUP_RATE="$WARMUP_RATE" -e P95_MS="$P95_MS" -e P99_MS="$P99_MS" \
  load-tests/hot-path.js
status=$?
set -e
if [[ -f "$summary" ]]; then
  node --conditions=development --import tsx load-tests/summary.ts "$summary" "$DURATION" || true
fi
case "$status" in
  0) log "all thresholds passed" ;;
  99) log "thresholds failed (k6 exit 99)" ;;
  *) log "k6 failed (exit $status)" ;;
esac
exit "$status"
