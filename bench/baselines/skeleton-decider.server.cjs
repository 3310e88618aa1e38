// The design's skeleton (skeleton.baseline.ts), in place of the quota-actor: answers every batch of decisions
// "admitted", one byte per request, without looking at the keys. Prints "ready" once subscribed.
const { connect } = require('nats');

async function main() {
  const nc = await connect({ servers: process.env.SKELETON_NATS_URL });
  nc.subscribe(process.env.SKELETON_SUBJECT, {
    callback: (_error, msg) => {
      let requests = 1;
      for (const byte of msg.data) if (byte === 10) requests++;
      msg.respond(Buffer.alloc(requests, 1));
    },
  });
  await nc.flush();
  console.log('ready');
  process.on('SIGTERM', () => void nc.drain().then(() => process.exit(0)));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
