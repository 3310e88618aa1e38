import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake answers one chat-completions request. */
export interface FakeLlmAnswer {
  /** The assistant message content (wrapped in a chat-completions envelope). */
  content?: string;
  /** A raw body instead of the envelope. */
  rawBody?: string;
  status?: number;
  delayMs?: number;
}

export interface FakeLlmRequest {
  authorization?: string;
  body: { model?: string; messages?: { role: string; content: string }[]; response_format?: unknown };
}

export interface FakeLlm {
  /** Base URL to put in LLM_BASE_URL (…/v1). */
  url: string;
  requests: FakeLlmRequest[];
  close(): Promise<void>;
}

/**
 * A small OpenAI-compatible chat-completions server on loopback, standing in for the external LLM in tests the
 * way the platform sandbox stands in for the platform. `answer` sees the user's question.
 */
export async function startFakeLlm(answer: (question: string) => FakeLlmAnswer): Promise<FakeLlm> {
  const requests: FakeLlmRequest[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then(async (text) => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(text) as FakeLlmRequest['body'];
      requests.push({ ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}), body });
      const question = body.messages?.find((message) => message.role === 'user')?.content ?? '';
      const reply = answer(question);
      if (reply.delayMs) {
        // A client that gives up closes the connection: stop waiting then, so no timer outlives the test.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, reply.delayMs);
          res.on('close', () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      if (res.destroyed) return;
      const payload =
        reply.rawBody ??
        JSON.stringify({
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: reply.content ?? '' }, finish_reason: 'stop' }],
        });
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' }).end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}
