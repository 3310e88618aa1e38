import { errors } from 'undici';
import { DeadlineExceededError, errorCodeOf, upstreamFailure } from './upstream-failure';

function systemError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('upstream failure mapping', () => {
  it.each([
    [new DeadlineExceededError(250), 'platform_timeout'],
    [new errors.HeadersTimeoutError(), 'platform_timeout'],
    [new errors.BodyTimeoutError(), 'platform_timeout'],
    [new errors.ConnectTimeoutError(), 'platform_timeout'],
    [systemError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:443'), 'platform_unreachable'],
    [systemError('ENOTFOUND', 'getaddrinfo ENOTFOUND business-api.example'), 'platform_unreachable'],
    [systemError('ECONNRESET', 'read ECONNRESET'), 'platform_connection_lost'],
    [new errors.SocketError('other side closed'), 'platform_connection_lost'],
    [Object.assign(new Error('fetch failed'), { cause: systemError('EAI_AGAIN', 'x') }), 'platform_unreachable'],
    [systemError('HPE_INVALID_CONSTANT', 'Expected HTTP/'), 'platform_connection_lost'],
    [new TypeError('x is not a function'), 'internal_error'],
  ])('maps %p to %s', (error, code) => {
    expect(upstreamFailure(error, 'video-ads', '/v1.3/campaign/get/').code).toBe(code);
  });

  it('never copies the error message, which can hold the URL and its query', () => {
    const error = systemError(
      'ECONNREFUSED',
      'connect ECONNREFUSED https://host/open_api?secret=s3cr3t&access_token=t0k',
    );
    const { detail } = upstreamFailure(error, 'video-ads', '/v1.3/oauth2/advertiser/get/');
    expect(detail).toBe('video-ads could not be reached for /v1.3/oauth2/advertiser/get/ (ECONNREFUSED)');
  });

  it('finds the code of a wrapped error', () => {
    expect(errorCodeOf({ cause: { cause: { code: 'ETIMEDOUT' } } })).toBe('ETIMEDOUT');
    expect(errorCodeOf('nope')).toBeUndefined();
  });
});
