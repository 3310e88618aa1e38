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

  it('loads for at least minSeconds before it calls a rate steady', async () => {
    // The shape of a quick run of 2026-11-27: two flat 1 s windows at 5 s, then still climbing.
    const rates = [1_471, 3_705, 4_439, 4_300, 4_350, 6_048, 6_180, 6_100, 6_150, 6_120, 6_200];
    let next = 0;
    const take = async () => rates[next++]!;
    expect((await warmUntilSteady({ windowSeconds: 1, maxSeconds: 14 }, take)).windows).toHaveLength(5);
    next = 0;
    const warmUp = await warmUntilSteady({ windowSeconds: 1, minSeconds: 8, maxSeconds: 14 }, take);
    expect(warmUp).toEqual({ windows: rates.slice(0, 8), seconds: 8, steady: true });
  });

  it('still ends at maxSeconds when minSeconds is longer', async () => {
    const warmUp = await warmUntilSteady({ windowSeconds: 2, minSeconds: 20, maxSeconds: 6 }, async () => 5_000);
    expect(warmUp).toEqual({ windows: [5_000, 5_000, 5_000], seconds: 6, steady: true });
  });
});
