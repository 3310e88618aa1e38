import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import { NoRespondersError, ReplyInbox, ReplyTimeoutError } from '../libs/decisions/src/reply-inbox';
import { testNatsUrl } from './harness';

/**
 * The decision hot path's request/reply (libs/decisions ReplyInbox) against a real nats-server: replies reach the
 * request that asked, a subject nobody serves fails at once, and a silent responder times out.
 */
let nc: NatsConnection;
let inbox: ReplyInbox;
const subject = (name: string) => `replyinbox.${randomBytes(4).toString('hex')}.${name}`;

beforeAll(async () => {
  nc = await connect({ servers: testNatsUrl() });
  inbox = new ReplyInbox(nc);
});

afterAll(async () => {
  inbox.close();
  await nc.drain();
});

it('reply inbox - hands each reply to the request that asked, with many in flight at once', async () => {
  const echo = subject('echo');
  nc.subscribe(echo, { callback: (_error, msg) => msg.respond(msg.data) });
  await nc.flush();
  const payloads = Array.from({ length: 200 }, (_, i) => `request-${i}`);
  const replies = await Promise.all(
    payloads.map((payload) => inbox.request(echo, new TextEncoder().encode(payload), 2_000)),
  );
  expect(replies.map((reply) => new TextDecoder().decode(reply.data))).toEqual(payloads);
});

it('reply inbox - fails at once with NoRespondersError when nobody serves the subject', async () => {
  const started = Date.now();
  await expect(inbox.request(subject('nobody'), new Uint8Array(), 2_000)).rejects.toBeInstanceOf(NoRespondersError);
  expect(Date.now() - started).toBeLessThan(1_000);
});

it('reply inbox - times out a request whose responder stays silent, and drops the late reply', async () => {
  const slow = subject('slow');
  const late: Promise<void>[] = [];
  nc.subscribe(slow, {
    callback: (_error, msg) => {
      late.push(new Promise((resolve) => setTimeout(() => resolve(void msg.respond(msg.data)), 300)));
    },
  });
  await nc.flush();
  const started = Date.now();
  await expect(inbox.request(slow, new Uint8Array([1]), 100)).rejects.toBeInstanceOf(ReplyTimeoutError);
  const waited = Date.now() - started;
  expect(waited).toBeGreaterThanOrEqual(100);
  expect(waited).toBeLessThan(250);
  await Promise.all(late);
  // The late reply found nobody waiting; the inbox still serves new requests.
  const echo = subject('after');
  nc.subscribe(echo, { callback: (_error, msg) => msg.respond(msg.data) });
  await nc.flush();
  const reply = await inbox.request(echo, new Uint8Array([2]), 1_000);
  expect([...reply.data]).toEqual([2]);
});
