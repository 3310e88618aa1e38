import { ServerResponse, type IncomingMessage } from 'node:http';

/**
 * A ServerResponse whose end() takes effect when the event-loop turn ends, together with every other answer ended in
 * the same turn (docs/benchmarks.md, "Answers written at the end of the turn").
 *
 * Each answer is a write to its own socket, and on loopback or a veth pair each write also wakes the reader. A client
 * that drains its answers faster than the edge makes them goes back to sleep between two of them, so every answer
 * paid a wake-up of a sleeping core: on a 2-core VM that was a sixth of a refusal's CPU. Ended together, the answers
 * of one turn reach the client while it is still awake. A turn with one request, the idle case, gains a setImmediate
 * and nothing else; a busy turn ends its first answer at most the rest of the turn later.
 *
 * Until the turn ends the answer is not yet ended (writableEnded is false): nothing may be written to it after end()
 * in the same turn, as after any end().
 */
export class TurnBatchedResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  override end(...args: unknown[]): this {
    // Every end() waits, a second one too: it keeps its place after the first, and node answers it as after any end().
    pendingEnds.push(this, args);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(endPendingAnswers);
    }
    return this;
  }
}

/** Answer and its end() arguments, flattened: [response, args, response, args, ...]. */
const pendingEnds: unknown[] = [];
let flushScheduled = false;

function endPendingAnswers(): void {
  flushScheduled = false;
  const batch = pendingEnds.splice(0);
  for (let i = 0; i < batch.length; i += 2) {
    const response = batch[i] as ServerResponse;
    try {
      endNow(response, batch[i + 1] as unknown[]);
    } catch {
      // What end() refuses here it would have refused in the handler too; one answer must not keep the rest.
      response.destroy();
    }
  }
}

function endNow<T extends ServerResponse>(response: T, args: unknown[]): T {
  return (ServerResponse.prototype.end as (...endArgs: unknown[]) => T).apply(response, args);
}
