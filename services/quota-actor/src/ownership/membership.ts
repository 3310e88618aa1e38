import { JSONCodec, type KV, type NatsConnection } from 'nats';

const json = JSONCodec<{ expiresAt: number }>();

/** Live quota-actor nodes, so each can aim at its share of the partitions (ceil(P / live)). */
export class Membership {
  private constructor(
    private readonly kv: KV,
    private readonly nodeId: string,
    private readonly ttlMs: number,
  ) {}

  static async open(nc: NatsConnection, options: { bucket: string; nodeId: string; ttlMs: number }) {
    const kv = await nc.jetstream().views.kv(options.bucket, { history: 1 });
    return new Membership(kv, options.nodeId, options.ttlMs);
  }

  async heartbeat(nowMs: number): Promise<void> {
    await this.kv.put(this.nodeId, json.encode({ expiresAt: nowMs + this.ttlMs }));
  }

  async liveCount(nowMs: number): Promise<number> {
    // Keys first, values after: awaiting kv.get() inside `for await` over kv.keys() ends that iteration after the
    // first key (nats 2.29), which made every node count itself alone and hold all partitions.
    const keys: string[] = [];
    for await (const key of await this.kv.keys()) keys.push(key);
    let live = 0;
    for (const key of keys) {
      const entry = await this.kv.get(key);
      if (entry?.operation === 'PUT' && json.decode(entry.value).expiresAt >= nowMs) live++;
    }
    return Math.max(1, live);
  }

  async leave(): Promise<void> {
    try {
      await this.kv.delete(this.nodeId);
    } catch {
      // best effort: the heartbeat expires anyway
    }
  }
}
