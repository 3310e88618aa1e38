import type { KV, KvEntry, QueuedIterator } from 'nats';

/**
 * Watches a whole KV bucket: resolves once the entries already in it have reached `onEntry`; later writes keep
 * reaching it until the returned watch is stopped.
 */
export async function followBucket(kv: KV, onEntry: (entry: KvEntry) => void): Promise<QueuedIterator<KvEntry>> {
  let initialized!: () => void;
  const ready = new Promise<void>((resolve) => (initialized = resolve));
  const watcher = await kv.watch({ initializedFn: () => initialized() });
  void (async () => {
    for await (const entry of watcher) onEntry(entry);
  })();
  await ready;
  return watcher;
}
