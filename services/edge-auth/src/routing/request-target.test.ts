import { ATTACK_PATHS } from '../../../../test/fixtures/attack-paths';
import { classifyTarget } from './request-target';

describe('request target', () => {
  it('recognises every allowlisted path byte for byte, with its query kept raw', () => {
    const target = classifyTarget(
      '/v1/video-ads/v1.3/report/integrated/get/?dimensions=%5B%22stat_time_day%22%5D&page=2',
    );
    expect(target).toMatchObject({
      kind: 'provider',
      provider: 'video-ads',
      path: '/v1.3/report/integrated/get/',
      query: 'dimensions=%5B%22stat_time_day%22%5D&page=2',
    });
    expect(target.kind === 'provider' && target.endpoint?.path).toBe('/v1.3/report/integrated/get/');
  });

  it('classifies /v1/me and nothing else as the key description', () => {
    expect(classifyTarget('/v1/me').kind).toBe('me');
    expect(classifyTarget('/v1/me?x=1').kind).toBe('me');
    expect(classifyTarget('/v1/me/').kind).toBe('unknown_provider');
    expect(classifyTarget('/v1/ME').kind).toBe('unknown_provider');
  });

  it('classifies the deprecation list and the page of one version, nothing deeper', () => {
    expect(classifyTarget('/v1/deprecations').kind).toBe('deprecations');
    expect(classifyTarget('/v1/deprecations/search-ads/v5')).toEqual({
      kind: 'deprecation_page',
      provider: 'search-ads',
      version: 'v5',
    });
    expect(classifyTarget('/v1/deprecations/search-ads/v5/x').kind).toBe('not_found');
  });

  it('says unknown_provider for ids outside spec section 1, including disguised ones', () => {
    for (const segment of ['tiktok', 'VIDEO-ADS', 'video%2Dads', 'video-adsx', 'video-ads-2', '']) {
      expect(classifyTarget(`/v1/${segment}/v1.3/campaign/get/`)).toMatchObject({ kind: 'unknown_provider' });
    }
  });

  it('keeps a known provider followed by a disguise as that provider, with no endpoint', () => {
    for (const url of [
      '/v1/video-ads\\v1.3\\campaign\\get\\',
      '/v1/video-ads;x/v1.3/campaign/get/',
      '/v1/video-ads%2Fv1.3/campaign/get/',
    ]) {
      expect(classifyTarget(url)).toMatchObject({ kind: 'provider', provider: 'video-ads', endpoint: undefined });
    }
  });

  it('says not_found outside /v1', () => {
    for (const url of ['/', '/v2/me', '/v1', 'http://evil/v1/me', '*', '/V1/me']) {
      expect(classifyTarget(url).kind).toBe('not_found');
    }
  });

  it.each(ATTACK_PATHS.map((path) => [path.length > 80 ? `${path.slice(0, 60)}... (${path.length})` : path, path]))(
    'finds no endpoint for the attack path %s',
    (_label, path) => {
      const target = classifyTarget(`/v1/video-ads${path}?advertiser_id=1`);
      expect(target.kind === 'provider' ? target.endpoint : undefined).toBeUndefined();
    },
  );

  it('has an attack corpus of at least 50 paths', () => {
    expect(ATTACK_PATHS.length).toBeGreaterThanOrEqual(50);
  });
});
