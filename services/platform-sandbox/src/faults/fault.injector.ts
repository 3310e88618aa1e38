import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlatformModule } from '../platform-modules';
import { FaultEffects } from './fault.effects';
import { faultTargetOf } from './fault-target';
import type { FaultTable } from './fault.table';
import { RateLimitReplies } from './rate-limit.replies';

/** Decides per request whether a fault takes it, and if so lets the fault answer instead of the platform. */
export class FaultInjector {
  private readonly effects: FaultEffects;

  constructor(
    private readonly table: FaultTable,
    private readonly modules: readonly PlatformModule[],
    options: { now: () => number; searchAdsHourLimit: number },
  ) {
    this.effects = new FaultEffects(table, new RateLimitReplies(options.now, options.searchAdsHourLimit));
  }

  /** true when a fault took the request (it answers, late, badly or never); false: answer it normally. */
  intercept(req: IncomingMessage, res: ServerResponse, path: string, answer: () => void): boolean {
    if (this.table.empty) return false;
    const target = faultTargetOf(path, this.modules);
    const fault = this.table.take(target);
    if (!fault) return false;
    this.effects.apply(fault, { req, res, module: target.module, answer });
    return true;
  }
}
