// docs/benchmarks.md, "Design figures" row 1: bare node:http answering a small JSON. Run by the gateway benchmark as a
// calibration point, so this machine's figures can be set against the table's. Prints its port on stdout.
const { createServer } = require('node:http');

const body = JSON.stringify({ ok: true, service: 'bare' });
const server = createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(String(server.address().port)));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
