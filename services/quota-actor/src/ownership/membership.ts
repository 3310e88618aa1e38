import { JSONCodec, type KV, type KvEntry, type NatsConnection, type QueuedIterator } from 'nats';
import { followBucket } from './bucket-watch';

const json = JSONCodec<{ expiresAt: number }>();

/**
 * Live quota-actor nodes, so each can aim at its share of the partitions (ceil(P / live)). Every node's heartbeat
 * reaches the others through a watch of the bucket, so counting the live nodes on each ownership tick reads memory
 * instead of listing the bucket (a JetStream consumer and a read per member, ten times a second).
 */
export class Membership {
  /** node id -> when its last heartbeat expires, as the watch has delivered them. */
  private readonly expiries = new Map<string, number>();
  private watcher: QueuedIterator<KvEntry> | undefined;
  private lastBeatMs = 0;

  private constructor(
    private readonly kv: KV,
    private readonly nodeId: string,
    private readonly ttlMs: number,
  ) {}

  static async open(nc: NatsConnection, options: { bucket: string; nodeId: string; ttlMs: number }) {
    const kv = await nc.jetstream().views.kv(options.bucket, { history: 1 });
    const membership = new Membership(kv, options.nodeId, options.ttlMs);
    membership.watcher = await followBucket(kv, (entry) => membership.remember(entry));
    return membership;
  }

  /** Writes this node's heartbeat when a quarter of its life has passed (several chances before it expires). */
  async heartbeat(nowMs: number): Promise<void> {
    if (nowMs - this.lastBeatMs < this.ttlMs / 4) return;
    await this.kv.put(this.nodeId, json.encode({ expiresAt: nowMs + this.ttlMs }));
    this.lastBeatMs = nowMs;
  }

  /** This node and every other whose heartbeat has not expired. */
  liveCount(nowMs: number): number {
    let live = 1;
    for (const [nodeId, expiresAt] of this.expiries) {
      if (nodeId !== this.nodeId && expiresAt >= nowMs) live++;
    }
    return live;
  }

  async leave(): Promise<void> {
    this.watcher?.stop();
    try {
      await this.kv.delete(this.nodeId);
    } catch {
      // best effort: the heartbeat expires anyway
    }
  }

  private remember(entry: KvEntry): void {
    if (entry.operation === 'PUT') this.expiries.set(entry.key, json.decode(entry.value).expiresAt);
    else this.expiries.delete(entry.key);
  }
}
