import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlatformModule } from '../platform-modules';
import { FaultEffects } from './fault.effects';
import { FaultTargets } from './fault-target';
import type { FaultTable } from './fault.table';

/** Decides per request whether a fault takes it, and if so lets the fault answer instead of the platform. */
export class FaultInjector {
  private readonly effects: FaultEffects;
  private readonly targets: FaultTargets;

  /** `fallback` answers paths no module claims; its rate-limit reply is theirs, as its 404 is. */
  constructor(
    private readonly table: FaultTable,
    modules: readonly PlatformModule[],
    private readonly fallback: PlatformModule,
  ) {
    this.effects = new FaultEffects(table);
    this.targets = new FaultTargets(modules);
  }

  /** true when a fault took the request (it answers, late, badly or never); false: answer it normally. */
  intercept(req: IncomingMessage, res: ServerResponse, path: string, answer: () => void): boolean {
    if (this.table.empty) return false;
    const { target, platform } = this.targets.of(path);
    const fault = this.table.take(target);
    if (!fault) return false;
    const faults = (platform ?? this.fallback).faults;
    this.effects.apply(fault, { req, res, answer, rateLimitReply: () => faults.rateLimitReply() });
    return true;
  }
}
