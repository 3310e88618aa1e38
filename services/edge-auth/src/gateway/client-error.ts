import { PROBLEM_CONTENT_TYPE, problemDetails, requestIdOf } from '@gateway/errors';
import type { Duplex } from 'node:stream';

/**
 * The server's 'clientError' handler. Requests Node cannot parse (raw spaces or control bytes in the target,
 * oversized headers) still get problem+json. A client too slow to send its request head within the header timeout
 * (docs/configuration.md, "HTTP timeouts") gets Node's own `408 Request Timeout`: its request was not malformed, and a
 * 400 would send it looking for a fault in a request it never finished sending.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const body = JSON.stringify(
    problemDetails(
      'invalid_request',
      requestIdOf(undefined),
      tooLarge ? 'request headers too large' : 'malformed HTTP request',
    ),
  );
  socket.end(
    `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
      `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
