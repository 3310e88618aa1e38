import { connect, type NatsConnection } from 'nats';

/**
 * The NATS connection of a gateway service. Without async traces the client does not build an Error (a stack
 * capture) for every request it sends, which is measurable on the hot path; its timeouts still say what timed out.
 */
export function connectNats(servers: string, name: string): Promise<NatsConnection> {
  return connect({ servers, name, noAsyncTraces: true });
}
