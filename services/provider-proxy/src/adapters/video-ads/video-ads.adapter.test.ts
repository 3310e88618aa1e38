import { inspect } from 'node:util';
import { findEndpoint } from '@gateway/catalogue';
import { QpsGuard } from '../../limits/qps-guard';
import { VideoAdsAdapter } from './video-ads.adapter';

const adapter = new VideoAdsAdapter({
  baseUrl: 'https://business-api.example.com',
  appId: '123',
  appSecret: 'app-secret-value',
  guard: new QpsGuard({ qps: 0, burst: 1, maxQueue: 0, maxWaitMs: 0 }),
});

function call(path: string, query: string, body?: Buffer) {
  return { endpoint: findEndpoint('video-ads', path)!, method: 'GET' as const, path, query, body };
}

describe('video-ads adapter', () => {
  it('maps the gateway path to the platform path and puts the token in Access-Token', () => {
    const prepared = adapter.prepare(call('/v1.3/report/integrated/get/', 'page=2&access_token=x'), {
      access_token: 'tok',
    });
    expect(prepared).toEqual({
      ok: true,
      request: {
        method: 'GET',
        origin: 'https://business-api.example.com',
        pathAndQuery: '/open_api/v1.3/report/integrated/get/?page=2',
        headers: { 'access-token': 'tok', 'accept-encoding': 'identity', accept: 'application/json' },
      },
    });
  });

  it('keeps a base path of the configured base URL', () => {
    const behindPrefix = new VideoAdsAdapter({
      baseUrl: 'http://127.0.0.1:9/sandbox/',
      appId: '1',
      appSecret: 's',
      guard: adapter.guard,
    });
    const prepared = behindPrefix.prepare(call('/v1.3/ad/get/', ''), { access_token: 't' });
    expect(prepared.ok && prepared.request.pathAndQuery).toBe('/sandbox/open_api/v1.3/ad/get/');
  });

  it('recognises the 40105 envelope and nothing else', () => {
    const envelope = (code: number) =>
      Buffer.from(JSON.stringify({ code, message: 'x', request_id: '40105', data: {} }));
    expect(adapter.isTokenError(200, envelope(40105))).toBe(true);
    expect(adapter.isTokenError(200, envelope(40100))).toBe(false);
    expect(adapter.isTokenError(500, envelope(40105))).toBe(false);
    expect(adapter.isTokenError(200, Buffer.from('40105 not json'))).toBe(false);
  });

  it('adds the app credentials only on the advertiser listing and forwards a JSON body on GET', () => {
    const listing = adapter.prepare(call('/v1.3/oauth2/advertiser/get/', 'secret=mine&app_id=9'), {
      access_token: 't',
    });
    expect(listing.ok && listing.request.pathAndQuery).toBe(
      '/open_api/v1.3/oauth2/advertiser/get/?app_id=123&secret=app-secret-value',
    );
    const body = Buffer.from('{"advertiser_id":"7"}');
    const withBody = adapter.prepare(call('/v1.3/campaign/get/', '', body), { access_token: 't' });
    expect(withBody.ok && withBody.request.body).toBe(body);
    expect(withBody.ok && withBody.request.headers['content-type']).toBe('application/json');
  });

  it('does not show the app secret when inspected or serialised', () => {
    expect(inspect(adapter, { depth: 5 })).not.toContain('app-secret-value');
    expect(JSON.stringify(adapter)).not.toContain('app-secret-value');
  });
});
