import type { Reject } from '@gateway/decisions';
import type { ProviderCaller } from '@gateway/proto';
import { newApiKeySecret } from '@gateway/store';
import { serveGatewayHandler, type ServedGateway } from './gateway-handler.fixture';

const refusal: Reject = {
  ok: false,
  code: 'rate_limited',
  keyId: 'key_1',
  retryAfterSeconds: 1,
  rate: { limit: 1, windowSeconds: 1, remaining: 0, resetSeconds: 1 },
  quota: { limit: 1_000, used: 1, remaining: 999, resetSeconds: 1_000, overageMode: 'metered' },
  holdMs: 1_000,
};

const noCaller: ProviderCaller = {
  call: () => {
    throw new Error('a refusal never reaches provider-proxy');
  },
  close: () => undefined,
};

/**
 * A refusal the edge repeats itself (issue 17) is written in one writeHead, apart from the fields the handler sets on
 * every other answer: it must carry the same fields as the quota-actor's own refusal, the lifecycle fields of a
 * retiring API version's path included (docs/rest.md).
 */
describe('held refusal fields', () => {
  let served: ServedGateway;
  let origin: string;
  let held = false;

  beforeAll(async () => {
    served = await serveGatewayHandler({
      decisions: {
        decide: () => Promise.resolve(refusal),
        refund: () => Promise.resolve(),
        heldRefusal: () => (held ? refusal : undefined),
      },
      caller: noCaller,
    });
    origin = `http://127.0.0.1:${served.port}`;
  });

  afterAll(() => served.close());

  async function refused(path: string, asHeld: boolean) {
    held = asHeld;
    const response = await fetch(`${origin}${path}`, { headers: { 'X-API-Key': newApiKeySecret() } });
    return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.json() };
  }

  it.each(['/v1/search-ads/api/v5/campaigns', '/v1/video-ads/v1.3/campaign/get/'])(
    'writes a held refusal of %s with the fields of the actor’s refusal',
    async (path) => {
      const decided = await refused(path, false);
      const repeated = await refused(path, true);
      expect(repeated.status).toBe(429);
      const names = (headers: Record<string, string>) =>
        Object.keys(headers)
          .filter((name) => name !== 'date')
          .sort();
      expect(names(repeated.headers)).toEqual(names(decided.headers));
      for (const name of ['ratelimit', 'ratelimit-policy', 'retry-after', 'content-type', 'cache-control']) {
        expect(repeated.headers[name]).toBe(decided.headers[name]);
      }
      expect(repeated.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
      expect(repeated.body).toMatchObject({ code: 'rate_limited', request_id: repeated.headers['x-request-id'] });
      const retiring = path.startsWith('/v1/search-ads/api/v5/');
      for (const name of ['deprecation', 'sunset', 'link']) {
        expect(repeated.headers[name] !== undefined).toBe(retiring);
        expect(repeated.headers[name]).toBe(decided.headers[name]);
      }
    },
  );
});
