import { providerSpec, type ProviderSpec } from '@gateway/catalogue';
import { nextStep } from './list-endpoints.tool';

describe('list_endpoints next_step', () => {
  const ads = providerSpec('video-ads')!;
  const shop = providerSpec('video-shop')!;

  it('names the starting endpoint of each of the key providers', () => {
    const both = nextStep([ads, shop]);
    expect(both).toContain('video-ads: /v1.3/oauth2/advertiser/get/');
    expect(both).toContain('video-shop: /authorization/202309/shops');
    const shopOnly = nextStep([shop]);
    expect(shopOnly).toContain('/authorization/202309/shops');
    expect(shopOnly).not.toContain('advertiser');
  });

  it('says so when the key has no open endpoints', () => {
    expect(nextStep([])).toMatch(/no callable endpoints/);
    expect(nextStep([{ ...shop, endpoints: [] } as ProviderSpec])).toMatch(/no callable endpoints/);
  });
});
