import { CONTROL_PREFIX } from '../control/control.handler';
import { findModule, type PlatformModule } from '../platform-modules';
import type { FaultTarget } from './fault.table';

/**
 * Which module answers `path` and whether it is an exempt route, as the fault table matches them. Exempt routes stay
 * reliable unless a fault's path_prefix names them: tests need the control surface to clear faults, and each
 * module's grant and token endpoints (its fault hooks) to seed connections while the platform APIs misbehave.
 * (/healthz is answered before faults are looked at, so it never fails.)
 */
export class FaultTargets {
  private readonly exemptRoots: readonly string[];

  constructor(private readonly modules: readonly PlatformModule[]) {
    this.exemptRoots = [CONTROL_PREFIX, ...modules.flatMap((platform) => platform.faults.exemptRoots)];
  }

  of(path: string): { target: FaultTarget; platform: PlatformModule | undefined } {
    const exemptRoot = this.exemptRoots.find((root) => path === root || path.startsWith(`${root}/`));
    const platform = findModule(this.modules, path);
    return { target: { path, module: platform?.name, exemptRoot }, platform };
  }
}
