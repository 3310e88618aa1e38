import { connect, type NatsConnection } from 'nats';

/** Reconnect without limit, every 2 s (with the client's jitter), whatever the outage's length. */
const RECONNECT_FOREVER = { maxReconnectAttempts: -1, reconnectTimeWait: 2_000 } as const;

/**
 * The NATS connection of a gateway service. Without async traces the client does not build an Error (a stack
 * capture) for every request it sends, which is measurable on the hot path; its timeouts still say what timed out.
 * It reconnects for as long as the process lives: the client's default gives up after 10 attempts 2 s apart, and a
 * NATS outage longer than that left services running but deaf until someone restarted them (npm run chaos).
 */
export function connectNats(servers: string, name: string): Promise<NatsConnection> {
  return connect({ servers, name, noAsyncTraces: true, ...RECONNECT_FOREVER });
}
