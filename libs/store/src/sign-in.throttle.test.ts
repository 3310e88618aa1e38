import { SignInThrottle } from './sign-in.throttle';

describe('sign-in throttle', () => {
  it('refuses after the limit of failures per email and address until the oldest leaves the window', () => {
    let now = 0;
    const throttle = new SignInThrottle(3, 60_000, () => now);
    for (let i = 0; i < 3; i++) {
      expect(throttle.retryAfterSeconds('A@example.com', '10.0.0.1')).toBe(0);
      throttle.recordFailure('a@example.com', '10.0.0.1');
      now += 1000;
    }
    expect(throttle.retryAfterSeconds('a@example.com', '10.0.0.1')).toBe(57);
    expect(throttle.retryAfterSeconds('a@example.com', '10.0.0.2')).toBe(0);
    expect(throttle.retryAfterSeconds('b@example.com', '10.0.0.1')).toBe(0);
    now = 60_001;
    expect(throttle.retryAfterSeconds('a@example.com', '10.0.0.1')).toBe(0);
  });

  it('forgets the failures of a successful sign-in', () => {
    const throttle = new SignInThrottle(2, 60_000, () => 0);
    throttle.recordFailure('a@example.com', 'x');
    throttle.recordSuccess('a@example.com', 'x');
    throttle.recordFailure('a@example.com', 'x');
    expect(throttle.retryAfterSeconds('a@example.com', 'x')).toBe(0);
  });
});
