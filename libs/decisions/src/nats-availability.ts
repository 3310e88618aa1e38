import type { DecisionClient } from './decision.client';
import type { Verdict } from './verdict';
import { Events, type NatsConnection } from 'nats';

type Decisions = Pick<DecisionClient, 'decide' | 'heldRefusal' | 'refund' | 'refundSuggestion'>;

/** What a request gets while NATS is away: the documented 503 (edge-auth and mcp-server add Retry-After). */
export const NATS_UNAVAILABLE: Verdict = {
  ok: false,
  code: 'service_unavailable',
  detail: 'the quota service cannot be reached; retry shortly',
};

/**
 * Decisions that fail at once while the NATS connection is down (between its `disconnect` and `reconnect` events,
 * or once it is closed) instead of waiting the whole DECISION_BUDGET_MS for an owner that cannot be asked (edge-auth
 * and mcp-server): during an outage every request would otherwise hold its socket for 4 s and answer at the very edge
 * of its deadline (`npm run chaos`, scenario 1). Requests already waiting when the connection drops keep their budget.
 */
export function failFastWhileDisconnected(decisions: Decisions, nc: NatsConnection): Decisions {
  let disconnected = false;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === Events.Disconnect) disconnected = true;
      else if (status.type === Events.Reconnect) disconnected = false;
    }
  })();
  const away = () => disconnected || nc.isClosed();
  return {
    decide: (request) => (away() ? Promise.resolve(NATS_UNAVAILABLE) : decisions.decide(request)),
    // While NATS is away decide answers 503 as before: a hold repeats the owner's refusals only while it is heard.
    heldRefusal: (request) => (away() ? undefined : decisions.heldRefusal(request)),
    refund: (keyHash, count) => decisions.refund(keyHash, count),
    refundSuggestion: (keyHash) => decisions.refundSuggestion(keyHash),
  };
}
