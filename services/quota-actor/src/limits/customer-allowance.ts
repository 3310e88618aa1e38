import type { Connection } from 'mongoose';

/** What a customer's month is counted in: forwarded requests (block mode) or AI suggestions. */
export type AllowanceKind = 'requests' | 'suggestions';

/** One step of a customer's chain: units taken (size > 0) or given back (size < 0). */
interface AllowanceEntry {
  /** `${chain}|${seq}`: the unique `_id` is what makes taking a step exact (see CustomerAllowance). */
  _id: string;
  chain: string;
  seq: number;
  size: number;
  /** Units taken after this step: the previous entry's `end` plus `size`. */
  end: number;
  key_id: string;
  at: Date;
}

/** Where the chain was last seen to end: a hint that saves walking it from the start; never trusted alone. */
interface ChainHead {
  _id: string;
  seq: number;
}

interface Position {
  seq: number;
  end: number;
}

/** Sums a customer's month before its chain existed (usage written by per-key counting, or a rotation's carry-over). */
export type GenesisReader = (customerId: string, month: string, kind: AllowanceKind) => Promise<number>;

/**
 * A customer's monthly allowance shared by all its keys, whichever node owns them: an append-only chain of steps
 * in the database, one document per step with `_id` = chain + sequence number. Taking units is inserting the next
 * step; when two owners race for the same sequence number the unique `_id` lets exactly one insert win (on MongoDB
 * and on FerretDB, whose conditional updates are read-modify-write across processes and could both win), and the
 * loser reads the winner's step and tries the next number. A step's `end` is the running total, so the chain can
 * never hand out more than the limit in total.
 *
 * Units move chain -> key reservation (UsageLedger.grow). An owner that dies between the two loses those units
 * (counted against the customer, at most one chunk per key), never more; a clean handover gives the unused part
 * of each reservation back as a negative step.
 */
export class CustomerAllowance {
  private readonly positions = new Map<string, Position>();
  /** This node's appends per chain, one at a time: its own partitions never race each other for a step. */
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(
    private readonly connection: Connection,
    private readonly genesis: GenesisReader,
  ) {}

  private get steps() {
    return this.connection.db!.collection<AllowanceEntry>('customer_allowance');
  }

  private get heads() {
    return this.connection.db!.collection<ChainHead>('customer_allowance_heads');
  }

  /** Takes up to `want` units while the chain's total stays at or below `limit`; returns the units taken (0: none). */
  take(customerId: string, month: string, kind: AllowanceKind, want: number, limit: number, keyId: string) {
    return this.append(customerId, month, kind, keyId, (end) => Math.max(0, Math.min(want, limit - end)));
  }

  /** Returns `units` taken earlier (a reservation left unused, a suggestion the AI failed to give). */
  async giveBack(customerId: string, month: string, kind: AllowanceKind, units: number, keyId: string) {
    if (units <= 0) return;
    await this.append(customerId, month, kind, keyId, (end) => -Math.min(units, end));
  }

  private append(
    customerId: string,
    month: string,
    kind: AllowanceKind,
    keyId: string,
    sizeAt: (end: number) => number,
  ): Promise<number> {
    const chain = chainId(customerId, month, kind);
    const run = async (): Promise<number> => {
      let position = await this.walk(chain, await this.startingPoint(chain));
      if (position.seq < 0) position = await this.createGenesis(chain, customerId, month, kind);
      for (;;) {
        const size = sizeAt(position.end);
        if (size === 0) return 0;
        const step: AllowanceEntry = {
          _id: stepId(chain, position.seq + 1),
          chain,
          seq: position.seq + 1,
          size,
          end: position.end + size,
          key_id: keyId,
          at: new Date(),
        };
        if (await this.insertStep(step)) {
          this.remember(chain, { seq: step.seq, end: step.end });
          return Math.abs(size);
        }
        position = await this.walk(chain, position);
      }
    };
    const result = (this.tails.get(chain) ?? Promise.resolve()).then(run);
    const tail = result.catch(() => undefined);
    this.tails.set(chain, tail);
    void tail.then(() => {
      if (this.tails.get(chain) === tail) this.tails.delete(chain);
    });
    return result;
  }

  /**
   * Step 0 carries what the customer's keys used this month before the chain existed, so switching to the chain
   * mid-month (or a month of rotated keys) never hands out the quota a second time.
   */
  private async createGenesis(chain: string, customerId: string, month: string, kind: AllowanceKind) {
    const before = await this.genesis(customerId, month, kind);
    const step: AllowanceEntry = {
      _id: stepId(chain, 0),
      chain,
      seq: 0,
      size: before,
      end: before,
      key_id: '',
      at: new Date(),
    };
    // No head for step 0: the step that follows it at once writes one.
    if (await this.insertStep(step, false)) return { seq: 0, end: before };
    return this.walk(chain, { seq: -1, end: 0 });
  }

  private async insertStep(step: AllowanceEntry, writeHead = true): Promise<boolean> {
    try {
      await this.steps.insertOne(step);
    } catch (error) {
      if ((error as { code?: number }).code === 11000) return false;
      throw error;
    }
    if (!writeHead) return true;
    // The head only saves the next reader a walk; losing this write costs a longer walk, never a wrong answer.
    await this.heads.updateOne({ _id: step.chain }, { $max: { seq: step.seq } }, { upsert: true }).catch(() => {
      // A concurrent first upsert of the head can fail on the unique _id; the next step writes it.
    });
    return true;
  }

  /** The last position this node knows, else the shared head hint, else before the first step. */
  private async startingPoint(chain: string): Promise<Position> {
    const known = this.positions.get(chain);
    if (known) return known;
    const head = await this.heads.findOne({ _id: chain });
    if (!head) return { seq: -1, end: 0 };
    const step = await this.steps.findOne({ _id: stepId(chain, head.seq) });
    return step ? { seq: step.seq, end: step.end } : { seq: -1, end: 0 };
  }

  /** Follows the steps others appended after `from`, by `_id` alone (the one lookup FerretDB does by index). */
  private async walk(chain: string, from: Position): Promise<Position> {
    let position = from;
    for (;;) {
      const next = await this.steps.findOne({ _id: stepId(chain, position.seq + 1) });
      if (!next) break;
      position = { seq: next.seq, end: next.end };
    }
    this.remember(chain, position);
    return position;
  }

  private remember(chain: string, position: Position): void {
    const known = this.positions.get(chain);
    if (!known || known.seq < position.seq) this.positions.set(chain, position);
    // A node sees few customer-months at once; old months are dropped as a new one starts.
    if (this.positions.size > 100_000) this.positions.clear();
  }
}

function chainId(customerId: string, month: string, kind: AllowanceKind): string {
  return `${customerId}|${month}|${kind}`;
}

function stepId(chain: string, seq: number): string {
  return `${chain}|${seq}`;
}
