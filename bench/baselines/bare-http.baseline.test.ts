import { startBareHttp, type ReplayedAnswer } from './bare-http.baseline';

const SAMPLED_ID = 'req_00112233445566778899aabbccddeeff';
const answer: ReplayedAnswer = {
  status: 429,
  fields: [
    ['x-request-id', SAMPLED_ID],
    ['ratelimit-policy', '"rate";q=1;w=1'],
    ['ratelimit', '"rate";r=0;t=1'],
    ['content-type', 'application/problem+json'],
    ['cache-control', 'no-store'],
    ['retry-after', '1'],
  ],
  body: JSON.stringify({ type: 'urn:gateway:error:rate_limited', status: 429, request_id: SAMPLED_ID }),
  requestId: SAMPLED_ID,
};

describe('the bare node:http baseline', () => {
  it('answers its small JSON', async () => {
    const bare = await startBareHttp();
    try {
      const response = await fetch(`${bare.origin}/anything`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ ok: true, service: 'bare' });
    } finally {
      await bare.stop();
    }
  });

  it('replays a sampled answer with a fresh request id in its fields and body, for each request', async () => {
    const bare = await startBareHttp(answer);
    try {
      const responses = await Promise.all(Array.from({ length: 5 }, () => fetch(`${bare.origin}/`)));
      const ids = new Set<string>();
      for (const response of responses) {
        const body = await response.text();
        const id = response.headers.get('x-request-id')!;
        expect(id).toMatch(/^req_[0-9a-f]{32}$/);
        expect(id).not.toBe(SAMPLED_ID);
        ids.add(id);
        expect(response.status).toBe(429);
        expect(JSON.parse(body)).toEqual({ type: 'urn:gateway:error:rate_limited', status: 429, request_id: id });
        expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(body));
        for (const [name, value] of answer.fields.slice(1)) expect(response.headers.get(name)).toBe(value);
      }
      expect(ids.size).toBe(5);
    } finally {
      await bare.stop();
    }
  });
});
