import { isUntracedPath } from './untraced-paths';

describe('isUntracedPath', () => {
  it('names the probes and the scrape, whatever their query, and nothing else', () => {
    for (const url of ['/metrics', '/healthz', '/readyz', '/livez', '/metrics?name[]=x', '/healthz?']) {
      expect(isUntracedPath(url)).toBe(true);
    }
    for (const url of [undefined, '', '/', '/v1/me', '/metrics/x', '/healthzz', '/v1/metrics']) {
      expect(isUntracedPath(url)).toBe(false);
    }
  });
});
