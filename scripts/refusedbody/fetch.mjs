// Sends a request body too large for the service with Node's fetch, in chunked
// encoding, and prints the answer's status and body: server/api_refused_body_clients_test.go
// (TestRefusedBodyNodeFetch) checks that Node reads the 413 document rather than
// failing on a reset connection.
//
// usage: node fetch.mjs URL TOKEN METHOD HEAD MEBIBYTES TAIL
const [url, token, method, head, mebibytes, tail] = process.argv.slice(2);
const piece = new Uint8Array(64 << 10).fill(0x6e); // "n"
const encoder = new TextEncoder();
let left = Number(mebibytes) * 16;
const body = new ReadableStream({
  start(controller) {
    controller.enqueue(encoder.encode(head));
  },
  pull(controller) {
    if (left-- > 0) {
      controller.enqueue(piece);
      return;
    }
    controller.enqueue(encoder.encode(tail));
    controller.close();
  },
});
try {
  const res = await fetch(url, {
    method,
    body,
    duplex: "half",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/vnd.api+json",
      Accept: "application/vnd.api+json",
    },
  });
  console.log(JSON.stringify({ status: res.status, body: await res.text() }));
} catch (err) {
  console.log(JSON.stringify({ error: String(err), cause: String(err.cause ?? "") }));
}
