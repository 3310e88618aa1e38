import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Fault, FaultTable } from './fault.table';
import type { FaultReply } from '../platform-modules';

export interface FaultedRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** The platform's own rate-limit refusal for this request (its module's, or the fallback module's). */
  rateLimitReply: () => FaultReply;
  /** Answers the request as if no fault applied (the latency fault calls it late). */
  answer: () => void;
}

const PLAIN_500 = 'Internal Server Error\n';
/** Starts like the platform's envelope, then stops being JSON: what a broken proxy in front of it sends. */
const MALFORMED_BODY = '{"code":0,"message":"OK","data":{"list":[{"id":"1",}<!-- upstream error -->';
/** The part of a truncated answer that is sent; Content-Length announces TRUNCATED_DECLARED_BYTES. */
const TRUNCATED_PART = '{"code":0,"message":"OK","request_id":"0","data":{"list":[{"id":"1","name":"cut her';
const TRUNCATED_DECLARED_BYTES = 4096;

/** A huge answer is `{"data":{"list":[` + string items of HUGE_ITEM_BYTES each (comma included) + `]}}`. */
const HUGE_HEAD = Buffer.from('{"data":{"list":[');
const HUGE_TAIL = Buffer.from(']}}');
const HUGE_ITEM_BYTES = 1024;
const HUGE_ITEMS_PER_CHUNK = 64;
let hugeChunk: Buffer | undefined;

/** What each fault kind does to the HTTP exchange. */
export class FaultEffects {
  constructor(private readonly table: FaultTable) {}

  apply(fault: Fault, request: FaultedRequest): void {
    const { req, res } = request;
    switch (fault.kind) {
      case 'latency': {
        const timer = setTimeout(request.answer, fault.latency_ms);
        res.once('close', () => clearTimeout(timer));
        return;
      }
      case 'hang': {
        // Never answers: the socket goes when the client gives up or the faults are cleared.
        const release = () => req.socket.destroy();
        const unhold = this.table.hold(fault.id, release);
        res.once('close', () => {
          unhold();
          release();
        });
        return;
      }
      case 'status_500':
        return send(res, 500, 'text/plain; charset=utf-8', PLAIN_500);
      case 'rate_limit': {
        const reply = request.rateLimitReply();
        const body = JSON.stringify(reply.payload);
        res.writeHead(reply.status, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...reply.headers,
        });
        res.end(body);
        return;
      }
      case 'malformed':
        return send(res, 200, 'application/json', MALFORMED_BODY);
      case 'truncated':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': TRUNCATED_DECLARED_BYTES });
        // Ends the socket after the part is out: the client sees fewer bytes than announced, then EOF.
        res.write(TRUNCATED_PART, () => req.socket.end());
        return;
      case 'reset':
        req.socket.resetAndDestroy();
        return;
      case 'huge':
        return streamHuge(res, fault.size_bytes);
    }
  }
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** One item of a huge answer: a JSON string and its comma, HUGE_ITEM_BYTES in all. */
function chunkOfItems(): Buffer {
  hugeChunk ??= Buffer.from(`"${'x'.repeat(HUGE_ITEM_BYTES - 3)}",`.repeat(HUGE_ITEMS_PER_CHUNK));
  return hugeChunk;
}

/**
 * Exactly `size` bytes of valid JSON, written chunk by chunk as the client reads them (one shared 64 KiB buffer,
 * so the sandbox's memory does not grow with the size). Stops when the client goes away.
 */
export function streamHuge(res: ServerResponse, size: number): void {
  const available = size - HUGE_HEAD.length - HUGE_TAIL.length;
  let items = Math.floor((available - 2) / HUGE_ITEM_BYTES);
  const lastItem = Buffer.from(`"${'x'.repeat(available - items * HUGE_ITEM_BYTES - 2)}"`);
  const chunk = chunkOfItems();
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': size });
  res.write(HUGE_HEAD);
  const pump = (): void => {
    while (items > 0) {
      if (res.destroyed) return;
      const count = Math.min(items, HUGE_ITEMS_PER_CHUNK);
      items -= count;
      if (!res.write(count === HUGE_ITEMS_PER_CHUNK ? chunk : chunk.subarray(0, count * HUGE_ITEM_BYTES))) {
        res.once('drain', pump);
        return;
      }
    }
    res.end(Buffer.concat([lastItem, HUGE_TAIL]));
  };
  pump();
}
