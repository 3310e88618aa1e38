import { ERROR_CATALOGUE, errorStatus, problemDetails } from './index';

describe('problem details', () => {
  it('carries the spec code, the status of the one table and the request id', () => {
    const body = problemDetails('path_not_allowed', 'req_1', 'POST is never forwarded');
    expect(body).toEqual({
      type: 'urn:gateway:error:path_not_allowed',
      title: ERROR_CATALOGUE.path_not_allowed.title,
      status: 403,
      detail: 'POST is never forwarded',
      code: 'path_not_allowed',
      request_id: 'req_1',
    });
  });

  it('maps every row of spec section 7 to its status', () => {
    expect(errorStatus('missing_account_id')).toBe(400);
    expect(errorStatus('account_not_allowed')).toBe(403);
    expect(errorStatus('ip_not_allowed')).toBe(403);
    expect(errorStatus('provider_not_in_plan')).toBe(403);
    expect(errorStatus('path_not_allowed')).toBe(403);
  });

  it('does not let an extension overwrite the code or the request id', () => {
    const body = problemDetails('rate_limited', 'req_2', undefined, { code: 'x', request_id: 'y', retry_after: 1 });
    expect(body.code).toBe('rate_limited');
    expect(body.request_id).toBe('req_2');
    expect(body.retry_after).toBe(1);
  });
});
