// The design's skeleton (skeleton.baseline.ts): what its processes send each other, in a few bytes per request.
// Binary on purpose: the gateway's own messages are protobuf, and JSON would charge the skeleton for escaping bodies.
const grpc = require('@grpc/grpc-js');

const asIs = (bytes) => bytes;

/** One bidirectional method; every message is one event-loop turn of frames. */
const proxyService = {
  exchange: {
    path: '/skeleton.Proxy/Exchange',
    requestStream: true,
    responseStream: true,
    requestSerialize: asIs,
    requestDeserialize: asIs,
    responseSerialize: asIs,
    responseDeserialize: asIs,
  },
};

/** Frames of [u32 id][u16 status][u32 length][bytes]: a request carries its upstream path, an answer its body. */
function encodeFrames(frames) {
  let size = 0;
  for (const frame of frames) size += 10 + frame.bytes.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const frame of frames) {
    out.writeUInt32LE(frame.id, at);
    out.writeUInt16LE(frame.status, at + 4);
    out.writeUInt32LE(frame.bytes.length, at + 6);
    frame.bytes.copy(out, at + 10);
    at += 10 + frame.bytes.length;
  }
  return out;
}

function decodeFrames(message, onFrame) {
  let at = 0;
  while (at + 10 <= message.length) {
    const length = message.readUInt32LE(at + 6);
    onFrame(message.readUInt32LE(at), message.readUInt16LE(at + 4), message.subarray(at + 10, at + 10 + length));
    at += 10 + length;
  }
}

/** Calls `send(items)` once at the end of the turn with everything pushed during it. */
function turnQueue(send) {
  let items = [];
  return (item) => {
    items.push(item);
    if (items.length === 1)
      setImmediate(() => {
        const turn = items;
        items = [];
        send(turn);
      });
  };
}

module.exports = { grpc, proxyService, encodeFrames, decodeFrames, turnQueue };
