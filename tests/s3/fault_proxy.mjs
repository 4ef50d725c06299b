// A loopback proxy in front of the test RGW that answers some requests
// itself with S3's throttling error, so the s3 store meets a 503 storm from
// a real client's point of view (the answer is what RGW and AWS send:
// 503 with an XML body whose Code is SlowDown).
//
//   node tests/s3/fault_proxy.mjs UPSTREAM_PORT MODE
//
// MODE: "storm"  every request is answered 503 SlowDown;
//       "writes" PUT and DELETE are answered 503 SlowDown, the rest forwarded;
//       "puts=N" the first N PUTs (and everything before them) are forwarded,
//                then every connection is cut without an answer, as if the
//                gateway died right after its Nth write.
// Listens on a free 127.0.0.1 port and prints it on stdout as one line; on
// SIGTERM prints "answered=N forwarded=M" on stderr and exits.
import http from "node:http";

const [portArg, mode] = process.argv.slice(2);
const upstreamPort = Number(portArg);
const cutAfter = /^puts=\d+$/.test(mode ?? "") ? Number(mode.slice(5)) : null;
if (!Number.isInteger(upstreamPort) || !(["storm", "writes"].includes(mode) || cutAfter !== null)) {
  process.stderr.write("usage: node fault_proxy.mjs UPSTREAM_PORT storm|writes|puts=N\n");
  process.exit(2);
}
let puts = 0;
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
let answered = 0;
let forwarded = 0;

const slowDown =
  '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code>' +
  "<Message>Please reduce your request rate.</Message></Error>";

const server = http.createServer((req, res) => {
  if (cutAfter !== null) {
    if (puts >= cutAfter) {
      answered += 1;
      req.socket.destroy();
      return;
    }
    if (req.method === "PUT") puts += 1;
  }
  const refuse = mode === "storm" || (mode === "writes" && (req.method === "PUT" || req.method === "DELETE"));
  if (refuse) {
    answered += 1;
    req.resume();  // read (and drop) the body, as a server does before answering
    req.on("end", () => {
      res.writeHead(503, { "Content-Type": "application/xml", "Content-Length": Buffer.byteLength(slowDown) });
      res.end(slowDown);
    });
    return;
  }
  forwarded += 1;
  const headers = { ...req.headers };
  delete headers.connection;
  const up = http.request(
    { host: "127.0.0.1", port: upstreamPort, method: req.method, path: req.url, headers, agent },
    (upRes) => {
      res.writeHead(upRes.statusCode, upRes.headers);
      upRes.pipe(res);
    },
  );
  up.on("error", () => {
    res.writeHead(502);
    res.end();
  });
  req.pipe(up);
});

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on("SIGTERM", () => {
  process.stderr.write(`answered=${answered} forwarded=${forwarded}\n`);
  process.exit(0);
});
