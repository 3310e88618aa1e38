import { stoppedClimbing, warmUntilSteady } from './warm-up';

describe('stoppedClimbing', () => {
  it('waits for two windows that do not beat the best before them by 5 %', () => {
    expect(stoppedClimbing([3_500, 5_200])).toBe(false);
    expect(stoppedClimbing([3_500, 5_200, 6_800])).toBe(false);
    expect(stoppedClimbing([3_500, 5_200, 6_800, 6_400])).toBe(false);
    expect(stoppedClimbing([3_500, 5_200, 6_800, 6_400, 6_950])).toBe(true);
  });

  it('keeps going when the second window after a dip climbs again', () => {
    expect(stoppedClimbing([3_500, 5_200, 4_000, 6_000])).toBe(false);
  });

  it('stops after three windows for a target that is steady from the start', () => {
    expect(stoppedClimbing([16_000, 16_200])).toBe(false);
    expect(stoppedClimbing([16_000, 16_200, 15_900])).toBe(true);
  });
});

describe('warmUntilSteady', () => {
  it('runs windows until the rate stops climbing and reports them', async () => {
    const rates = [3_500, 5_200, 6_800, 6_400, 6_950, 7_500];
    const seen: number[] = [];
    const warmUp = await warmUntilSteady({ windowSeconds: 2, maxSeconds: 30 }, async (seconds) => {
      seen.push(seconds);
      return rates[seen.length - 1]!;
    });
    expect(warmUp).toEqual({ windows: [3_500, 5_200, 6_800, 6_400, 6_950], seconds: 10, steady: true });
    expect(seen).toEqual([2, 2, 2, 2, 2]);
  });

  it('ends at maxSeconds while the rate still climbs, and says so', async () => {
    let rate = 1_000;
    const warmUp = await warmUntilSteady({ windowSeconds: 2, maxSeconds: 8 }, async () => (rate *= 1.5));
    expect(warmUp.windows).toHaveLength(4);
    expect(warmUp).toMatchObject({ seconds: 8, steady: false });
  });
});
