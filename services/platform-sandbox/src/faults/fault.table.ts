import { randomBytes } from 'node:crypto';
import type { FaultSpec } from './fault.schema';

/** A fault as the control routes show it: its spec with defaults filled in, and what it has done so far. */
export type Fault = FaultSpec & {
  id: string;
  created_at: string;
  /** Requests it has hit. */
  hits: number;
  /** Hits left before it is spent; null when it lasts until cleared. */
  remaining: number | null;
  /** false once spent: it stays listed (a test can read its hits) but hits nothing more. */
  active: boolean;
};

/** Where a request goes: its path as the sandbox sees it and the module that answers it, if any. */
export interface FaultTarget {
  path: string;
  /** The module's registered name; undefined when no module claims the path. */
  module: string | undefined;
  /**
   * Set for routes no fault hits unless its path_prefix names them: the control surface, the health check and the
   * sandbox's own grant and token endpoints. The value is the shortest prefix that names them.
   */
  exemptRoot: string | undefined;
}

/** Spent faults beyond this many are forgotten, oldest first, so a long chaos run cannot grow the table forever. */
const MAX_SPENT_KEPT = 500;

/**
 * The faults in force, in the order they were added; the first active one that matches a request takes it.
 * Requests held by a hang fault register a release here, so clearing the faults lets them go.
 */
export class FaultTable {
  private faults: Fault[] = [];
  private readonly held = new Map<string, Set<() => void>>();

  constructor(private readonly now: () => number) {}

  add(spec: FaultSpec): Fault {
    const fault: Fault = {
      ...spec,
      id: `flt_${randomBytes(8).toString('hex')}`,
      created_at: new Date(this.now()).toISOString(),
      hits: 0,
      remaining: spec.count ?? null,
      active: true,
    };
    this.faults.push(fault);
    this.forgetOldSpent();
    return fault;
  }

  /** Cheap check for the hot path: no fault was ever added, or all were cleared. */
  get empty(): boolean {
    return this.faults.length === 0;
  }

  list(): Fault[] {
    return this.faults.map((fault) => ({ ...fault }));
  }

  /** Removes every fault and releases the requests they hold; returns how many were removed. */
  clear(): number {
    const cleared = this.faults.length;
    this.faults = [];
    for (const id of [...this.held.keys()]) this.release(id);
    return cleared;
  }

  remove(id: string): boolean {
    const before = this.faults.length;
    this.faults = this.faults.filter((fault) => fault.id !== id);
    this.release(id);
    return this.faults.length < before;
  }

  /** The fault that takes this request, counted as one hit; undefined when none applies. */
  take(target: FaultTarget): Fault | undefined {
    const fault = this.faults.find((candidate) => candidate.active && matches(candidate, target));
    if (!fault) return undefined;
    fault.hits += 1;
    if (fault.remaining !== null) {
      fault.remaining -= 1;
      if (fault.remaining === 0) fault.active = false;
    }
    return { ...fault };
  }

  /** Registers how to let go of a request a fault holds; returns the unregister function. */
  hold(faultId: string, release: () => void): () => void {
    let set = this.held.get(faultId);
    if (!set) {
      set = new Set();
      this.held.set(faultId, set);
    }
    set.add(release);
    return () => {
      set.delete(release);
      if (set.size === 0 && this.held.get(faultId) === set) this.held.delete(faultId);
    };
  }

  private release(faultId: string): void {
    const set = this.held.get(faultId);
    this.held.delete(faultId);
    for (const release of set ?? []) release();
  }

  private forgetOldSpent(): void {
    let spent = this.faults.filter((fault) => !fault.active).length;
    if (spent <= MAX_SPENT_KEPT) return;
    this.faults = this.faults.filter((fault) => fault.active || spent-- <= MAX_SPENT_KEPT);
  }
}

function matches(fault: Fault, target: FaultTarget): boolean {
  if (fault.module !== undefined && fault.module !== target.module) return false;
  if (fault.path_prefix !== undefined && !target.path.startsWith(fault.path_prefix)) return false;
  if (target.exemptRoot === undefined) return true;
  // Control, health and grant routes only when the fault names them: its prefix is at least as specific.
  return fault.path_prefix !== undefined && fault.path_prefix.startsWith(target.exemptRoot);
}
