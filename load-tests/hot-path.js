// k6 load test of the REST hot path (edge-auth -> quota-actor -> provider-proxy -> platform sandbox).
//
//   hot_key    one key driven above its rate: most answers are 429 rate_limited, and the share of 429s must match
//              what the key's token bucket predicts (docs/rest.md "Limits": over T s at most burst + rps x T admitted).
//   many_keys  MANY_KEYS keys (1,000 by default) in round robin, each far below its rate: every answer is a 200.
//   warmup     before both: one request per many key at WARMUP_RATE, so that the measured scenarios see keys whose
//              records and monthly usage the quota-actor already holds (steady state, as in production). Its
//              answers count for server_errors but not for the latency, error-rate and 429 thresholds.
//
// Run it through `npm run load` (load-tests/run.sh), which seeds the keys with load-tests/prepare.ts. Everything
// comes from environment variables (k6 -e NAME=value or the environment), so one script serves smoke and full runs:
//   KEYS_FILE       the keys written by prepare.ts (required; JSON, see LoadKeysFile in prepare.ts)
//   BASE_URL        the gateway (default: base_url of KEYS_FILE); only loopback addresses are accepted
//   DURATION        length of both measured scenarios, k6 duration syntax (default 60s)
//   MANY_KEYS       how many keys of KEYS_FILE the many_keys scenario uses (default all of them)
//   WARMUP_RATE     requests/s of the warm-up, 0 to skip it (default 20)
//   HOT_RATE        requests/s of the hot key (default 4 x its plan's rate_limit_rps)
//   MANY_RATE       requests/s over all many keys together (default 20, i.e. 0.02/s per key with 1,000 keys)
//   P95_MS, P99_MS  latency limits of admitted (200) requests (default 250 and 500)
//   MAX_ERROR_RATE  share of answers that are neither the expected 200 nor 429 (default 0.001); any 5xx fails
//   HOT_429_TOLERANCE  allowed distance of the hot key's 429 share from its prediction (default 0.05)
//   MANY_429_MAX    allowed share of 429s for the many keys (default 0.001)
import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';
import { SharedArray } from 'k6/data';
import { Counter, Rate, Trend } from 'k6/metrics';

const env = (name, fallback) => (__ENV[name] === undefined || __ENV[name] === '' ? fallback : __ENV[name]);
const number = (name, fallback) => {
  const value = Number(env(name, fallback));
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number`);
  return value;
};

const KEYS_FILE = env('KEYS_FILE', '');
if (KEYS_FILE === '') throw new Error('KEYS_FILE is not set: run load-tests/prepare.ts first (npm run load does)');
// Parsed once per VU for the small parts; the 1,000 keys live in one SharedArray for all VUs.
const meta = JSON.parse(open(KEYS_FILE));
const MANY_KEYS = new SharedArray('many keys', () => {
  const all = JSON.parse(open(KEYS_FILE)).many.keys;
  const wanted = __ENV.MANY_KEYS ? Number(__ENV.MANY_KEYS) : all.length;
  if (!Number.isInteger(wanted) || wanted < 1 || wanted > all.length) {
    throw new Error(`MANY_KEYS must be 1..${all.length} (the keys in KEYS_FILE), got ${__ENV.MANY_KEYS}`);
  }
  return all.slice(0, wanted);
});
const hot = meta.hot;

const BASE_URL = env('BASE_URL', meta.base_url).replace(/\/+$/, '');
if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(BASE_URL)) {
  throw new Error(`BASE_URL must be a loopback address (this test only targets the local stack), got ${BASE_URL}`);
}
const DURATION = env('DURATION', '60s');
const durationSeconds = parseDuration(DURATION);
const HOT_RATE = number('HOT_RATE', 4 * hot.rate_limit_rps);
const MANY_RATE = number('MANY_RATE', 20);
const WARMUP_RATE = number('WARMUP_RATE', 20);
const P95_MS = number('P95_MS', 250);
const P99_MS = number('P99_MS', 500);
const MAX_ERROR_RATE = number('MAX_ERROR_RATE', 0.001);
const HOT_429_TOLERANCE = number('HOT_429_TOLERANCE', 0.05);
const MANY_429_MAX = number('MANY_429_MAX', 0.001);

// The many keys must stay far below their rate: round robin sends MANY_RATE / keys requests/s to each key.
const perKeyRate = MANY_RATE / MANY_KEYS.length;
if (perKeyRate > meta.many.rate_limit_rps / 5) {
  throw new Error(
    `MANY_RATE=${MANY_RATE} over ${MANY_KEYS.length} keys is ${perKeyRate}/s per key: not far enough below the ` +
      `${meta.many.plan} plan's ${meta.many.rate_limit_rps}/s (at most a fifth of it)`,
  );
}

// The hot key's bucket starts full (prepare.ts makes a fresh key per run), so over the scenario it admits at most
// burst + rps x T of HOT_RATE x T requests; the rest are 429.
const hotRequests = HOT_RATE * durationSeconds;
const hotAdmittedMax = hot.rate_burst + hot.rate_limit_rps * durationSeconds;
const HOT_429_EXPECTED = hotRequests > 0 ? Math.max(0, 1 - hotAdmittedMax / hotRequests) : 0;
const hot429Low = Math.max(0, HOT_429_EXPECTED - HOT_429_TOLERANCE);
const hot429High = Math.min(1, HOT_429_EXPECTED + HOT_429_TOLERANCE);

// Latency of admitted requests (200 from the platform) and of refused ones (429 from the gateway alone).
const admittedDuration = new Trend('admitted_duration', true);
const rateLimitedDuration = new Trend('rate_limited_duration', true);
// Anything that is not the expected 200 or 429 (wrong status, wrong body, missing limit headers, timeouts).
const errors = new Rate('errors');
const serverErrors = new Counter('server_errors');
const hotRateLimited = new Rate('hot_key_429');
const manyRateLimited = new Rate('many_keys_429');

const maxDropped = (rate) => Math.max(1, Math.floor(rate * durationSeconds * 0.01));

// The warm-up sends one request per many key, then the measured scenarios start after a short pause.
const warmupSeconds = WARMUP_RATE > 0 ? Math.ceil(MANY_KEYS.length / WARMUP_RATE) : 0;
const measuredStart = warmupSeconds > 0 ? `${warmupSeconds + 3}s` : '0s';
const warmup =
  warmupSeconds > 0
    ? {
        warmup: {
          executor: 'constant-arrival-rate',
          exec: 'warmUp',
          rate: Math.round(WARMUP_RATE),
          timeUnit: '1s',
          duration: `${warmupSeconds}s`,
          // Cold keys answer slowly (the actor loads them first): enough VUs up front that none is skipped.
          preAllocatedVUs: Math.max(10, Math.ceil(WARMUP_RATE * 2)),
          maxVUs: Math.max(20, Math.ceil(WARMUP_RATE * 5)),
          gracefulStop: '3s',
        },
      }
    : {};

export const options = {
  scenarios: {
    ...warmup,
    hot_key: {
      executor: 'constant-arrival-rate',
      exec: 'hotKey',
      rate: Math.max(1, Math.round(HOT_RATE)),
      timeUnit: '1s',
      duration: DURATION,
      // Enough VUs up front for answers of up to 0.5 s: starting VUs mid-run makes k6 skip iterations.
      preAllocatedVUs: Math.max(5, Math.ceil(HOT_RATE / 2)),
      maxVUs: Math.max(10, Math.ceil(HOT_RATE * 2)),
      startTime: measuredStart,
      gracefulStop: '10s',
    },
    many_keys: {
      executor: 'constant-arrival-rate',
      exec: 'manyKeys',
      rate: Math.max(1, Math.round(MANY_RATE)),
      timeUnit: '1s',
      duration: DURATION,
      preAllocatedVUs: Math.max(5, Math.ceil(MANY_RATE / 2)),
      maxVUs: Math.max(20, Math.ceil(MANY_RATE * 2)),
      startTime: measuredStart,
      gracefulStop: '10s',
    },
  },
  thresholds: {
    'admitted_duration{scenario:many_keys}': [`p(95)<${P95_MS}`, `p(99)<${P99_MS}`],
    'admitted_duration{scenario:hot_key}': [`p(95)<${P95_MS}`, `p(99)<${P99_MS}`],
    'errors{scenario:many_keys}': [`rate<${MAX_ERROR_RATE}`],
    'errors{scenario:hot_key}': [`rate<${MAX_ERROR_RATE}`],
    server_errors: ['count==0'],
    // Reported, not judged: these always pass and only make k6 keep the warm-up's figures apart.
    'errors{scenario:warmup}': ['rate>=0'],
    'admitted_duration{scenario:warmup}': ['max>=0'],
    hot_key_429: [`rate>=${hot429Low.toFixed(4)}`, `rate<=${hot429High.toFixed(4)}`],
    many_keys_429: [`rate<=${MANY_429_MAX}`],
    // The arrival rates are what the 429 prediction relies on: k6 must not have skipped iterations.
    'dropped_iterations{scenario:hot_key}': [`count<=${maxDropped(HOT_RATE)}`],
    'dropped_iterations{scenario:many_keys}': [`count<=${maxDropped(MANY_RATE)}`],
  },
  // 200 and 429 are answers the test expects; http_req_failed then counts only the others.
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max', 'count'],
  noCookiesReset: true,
  userAgent: 'gateway-load-test/1 (k6)',
};

http.setResponseCallback(http.expectedStatuses(200, 429));

// The report covers the seven days before today (UTC): stat_time_day allows up to 30.
const DAY_MS = 86_400_000;
const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
const START_DATE = new Date(today - 7 * DAY_MS).toISOString().slice(0, 10);
const END_DATE = new Date(today - DAY_MS).toISOString().slice(0, 10);
const q = (value) => encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value));

// Real allowlisted video-ads paths (libs/catalogue), with their parameters as the platform wants them:
// JSON arrays are ONE parameter holding a JSON string.
const ENDPOINTS = [
  { name: 'oauth2/advertiser/get', url: () => '/v1/video-ads/v1.3/oauth2/advertiser/get/' },
  {
    name: 'campaign/get',
    url: (advertiser) => `/v1/video-ads/v1.3/campaign/get/?advertiser_id=${q(advertiser)}&page_size=10`,
  },
  {
    name: 'report/integrated/get',
    url: (advertiser) =>
      `/v1/video-ads/v1.3/report/integrated/get/?advertiser_id=${q(advertiser)}&report_type=BASIC` +
      `&data_level=AUCTION_CAMPAIGN&dimensions=${q(['campaign_id', 'stat_time_day'])}` +
      `&metrics=${q(['spend', 'impressions', 'clicks'])}&start_date=${START_DATE}&end_date=${END_DATE}&page_size=50`,
  },
  {
    name: 'advertiser/info',
    url: (advertiser) => `/v1/video-ads/v1.3/advertiser/info/?advertiser_ids=${q([advertiser])}`,
  },
];

function request(key, round) {
  const endpoint = ENDPOINTS[round % ENDPOINTS.length];
  const advertiser = key.advertiser_ids[round % key.advertiser_ids.length];
  const headers = { 'X-API-Key': key.key, 'Accept-Encoding': 'gzip' };
  // spec 5.1: X-Account-Id only when the key has several connections.
  if (key.account_id) headers['X-Account-Id'] = key.account_id;
  const response = http.get(`${BASE_URL}${endpoint.url(advertiser)}`, {
    headers,
    timeout: '10s',
    tags: { name: endpoint.name },
  });
  return { response, endpoint: endpoint.name };
}

// k6 hands headers over in Go's canonical form ("Ratelimit-Policy"); compare names without case.
function header(response, name) {
  const wanted = name.toLowerCase();
  for (const key in response.headers) if (key.toLowerCase() === wanted) return response.headers[key];
  return undefined;
}

function hasLimitHeaders(response) {
  return (
    /"rate";r=\d+/.test(header(response, 'RateLimit') ?? '') &&
    /"rate";q=\d+/.test(header(response, 'RateLimit-Policy') ?? '')
  );
}

function bodyField(response, path) {
  try {
    return response.json(path);
  } catch {
    return undefined;
  }
}

/** A 200 carrying the platform's success envelope (platform errors travel as 200 with a non-zero code). */
function isAdmitted(response) {
  return response.status === 200 && bodyField(response, 'code') === 0 && hasLimitHeaders(response);
}

/** The gateway's 429 for the key's rate: problem+json rate_limited with Retry-After and the RateLimit fields. */
function isRateLimited(response) {
  return (
    response.status === 429 &&
    bodyField(response, 'code') === 'rate_limited' &&
    Number(header(response, 'Retry-After')) >= 1 &&
    hasLimitHeaders(response)
  );
}

function record(response, endpoint) {
  const admitted = isAdmitted(response);
  const rateLimited = !admitted && isRateLimited(response);
  if (admitted) admittedDuration.add(response.timings.duration, { endpoint });
  if (rateLimited) rateLimitedDuration.add(response.timings.duration, { endpoint });
  if (response.status >= 500) serverErrors.add(1, { status: String(response.status) });
  errors.add(!(admitted || rateLimited), { status: String(response.status) });
  check(response, {
    '200 is the platform envelope with RateLimit headers': (r) => r.status !== 200 || admitted,
    '429 is rate_limited with Retry-After and RateLimit headers': (r) => r.status !== 429 || rateLimited,
    'no 5xx': (r) => r.status < 500,
  });
  if (!(admitted || rateLimited) && exec.vu.iterationInScenario < 3) {
    console.warn(`unexpected answer ${response.status} on ${endpoint}: ${String(response.body).slice(0, 200)}`);
  }
  return { admitted, rateLimited };
}

export function hotKey() {
  const round = exec.scenario.iterationInTest;
  const { response, endpoint } = request(hot.key, round);
  const { rateLimited } = record(response, endpoint);
  hotRateLimited.add(rateLimited);
}

export function manyKeys() {
  // Round robin over the keys: iteration i uses key i mod n, and each pass over the keys moves every key to
  // the next endpoint and advertiser.
  const iteration = exec.scenario.iterationInTest;
  const key = MANY_KEYS[iteration % MANY_KEYS.length];
  const { response, endpoint } = request(key, iteration + Math.floor(iteration / MANY_KEYS.length));
  record(response, endpoint);
  manyRateLimited.add(response.status === 429);
}

export function warmUp() {
  const iteration = exec.scenario.iterationInTest;
  if (iteration >= MANY_KEYS.length) return;
  const { response, endpoint } = request(MANY_KEYS[iteration], 0);
  record(response, endpoint);
}

export function setup() {
  const health = http.get(`${BASE_URL}/healthz`, {
    tags: { name: 'healthz' },
    responseCallback: http.expectedStatuses(200),
  });
  if (health.status !== 200) throw new Error(`${BASE_URL}/healthz answered ${health.status}: is the stack up?`);
  console.log(
    `hot key: ${hot.plan} plan (${hot.rate_limit_rps}/s, burst ${hot.rate_burst}) at ${HOT_RATE}/s for ${DURATION}: ` +
      `expected 429 share ${HOT_429_EXPECTED.toFixed(3)} (band ${hot429Low.toFixed(3)}..${hot429High.toFixed(3)}); ` +
      `many keys: ${MANY_KEYS.length} on ${meta.many.plan} (${meta.many.rate_limit_rps}/s) at ${MANY_RATE}/s ` +
      `(${perKeyRate.toFixed(3)}/s per key); ` +
      (warmupSeconds > 0 ? `warm-up ${warmupSeconds}s at ${WARMUP_RATE}/s first` : 'no warm-up'),
  );
}

function parseDuration(text) {
  const units = { ms: 0.001, s: 1, m: 60, h: 3600 };
  let total = 0;
  let rest = String(text);
  const part = /^(\d+(?:\.\d+)?)(ms|s|m|h)/;
  while (rest.length > 0) {
    const match = part.exec(rest);
    if (!match) throw new Error(`DURATION must look like 15s, 2m or 1m30s, got ${text}`);
    total += Number(match[1]) * units[match[2]];
    rest = rest.slice(match[0].length);
  }
  if (total <= 0) throw new Error(`DURATION must be positive, got ${text}`);
  return total;
}
