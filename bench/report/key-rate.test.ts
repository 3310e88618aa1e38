import type { GatewaySection, GatewayTargetFigures } from '../gateway/gateway.bench';
import type { WrkResult } from '../load/wrk.runner';
import { cappedTargets, keyRateText } from './report';

const run = (non2xx: number): WrkResult =>
  ({ seconds: 6, requests: 80_000, non2xx, socketErrors: 0, okPerSecond: 13_000 }) as WrkResult;

const target = (name: string, non2xx: number[]): GatewayTargetFigures =>
  ({ name, saturation: { okPerSecond: 13_000, runs: non2xx.map(run) } }) as unknown as GatewayTargetFigures;

const section = (targets: GatewayTargetFigures[], keyRate = { rps: 100, burst: 200 }): GatewaySection =>
  ({ settings: { keys: 128, nginxKeys: 1024 }, keyRate, targets }) as unknown as GatewaySection;

describe("what the load keys pass together, in the gateway section's report", () => {
  it("states the keys' combined rate in the method", () => {
    expect(keyRateText(section([]))).toContain(
      "each key may pass 100 req/s with a burst of 200, so the gateway's keys may pass 12,800 req/s together",
    );
  });

  it('keeps the older claim for reports made before the key rate was recorded', () => {
    const older = { settings: { keys: 128 }, targets: [] } as unknown as GatewaySection;
    expect(keyRateText(older)).toBe(', so no key passes its rate and no CPU goes to refusals');
  });

  it('warns about every gateway or nginx target whose saturation runs got answers other than 2xx, each against its own keys', () => {
    const lines = cappedTargets(
      section([
        target('direct', [5]),
        target('nginx', [0, 47_995]),
        target('skeleton', [3]),
        target('gateway-stream', [0, 0]),
        target('gateway-video-shop', [3_756, 0]),
      ]),
    );
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("**nginx's saturation runs got answers other than 2xx** (0, 47,995 in its runs");
    expect(lines[0]).toContain("against its 1,024 keys' 102,400 req/s together");
    expect(lines[1]).toContain(
      "**gateway-video-shop's saturation runs got answers other than 2xx** (3,756, 0 in its runs",
    );
    expect(lines[1]).toContain("against its 128 keys' 12,800 req/s together");
  });

  it('says nothing when every run was answered 2xx', () => {
    expect(cappedTargets(section([target('nginx', [0]), target('gateway-stream', [0, 0])]))).toEqual([]);
  });
});
