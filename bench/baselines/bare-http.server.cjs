// docs/benchmarks.md, "Design figures" row 1: bare node:http answering a small JSON. Run by the gateway benchmark as a
// calibration point, so this machine's figures can be set against the table's. Prints its port on stdout.
//
// With BARE_HTTP_ANSWER (JSON: status, fields as [name, value] pairs, body, and the requestId they carry) it answers
// every request with that answer instead, a fresh request id in place of the sampled one, and ends the answers of an
// event-loop turn together, as edge-auth does: the refusal bench's ceiling for the edge's own refusal.
const { createServer } = require('node:http');
const { randomFillSync } = require('node:crypto');

const template = process.env.BARE_HTTP_ANSWER ? JSON.parse(process.env.BARE_HTTP_ANSWER) : undefined;
const small = JSON.stringify({ ok: true, service: 'bare' });

const pool = Buffer.allocUnsafe(16 * 256);
let taken = pool.length;
function freshId() {
  if (taken === pool.length) {
    randomFillSync(pool);
    taken = 0;
  }
  taken += 16;
  return `req_${pool.toString('hex', taken - 16, taken)}`;
}

const pending = [];
function endPending() {
  const batch = pending.splice(0);
  for (let i = 0; i < batch.length; i += 2) batch[i].end(batch[i + 1]);
}

function replay(res) {
  const id = freshId();
  const fields = [];
  for (const [name, value] of template.fields) fields.push(name, value === template.requestId ? id : value);
  const body = template.body.split(template.requestId).join(id);
  fields.push('Content-Length', String(Buffer.byteLength(body)));
  res.writeHead(template.status, fields);
  if (pending.push(res, body) === 2) setImmediate(endPending);
}

const server = createServer((_req, res) => {
  if (template) return replay(res);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(small) });
  res.end(small);
});
server.listen(0, '127.0.0.1', () => console.log(String(server.address().port)));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
