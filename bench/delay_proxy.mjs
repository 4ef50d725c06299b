// A loopback HTTP proxy that holds each request for DELAY_MS before
// forwarding it to an upstream server, so a local server behaves like a
// distant one: every request costs at least one added delay, and requests
// that depend on each other add up. Method, path and headers (Range above
// all) go upstream unchanged; status, headers and body come back unchanged.
//
//   node bench/delay_proxy.mjs UPSTREAM_PORT DELAY_MS
//
// Listens on a free 127.0.0.1 port and prints it on stdout as one line.
import http from "node:http";

const [upstreamPort, delayArg] = process.argv.slice(2).map(Number);
if (!Number.isInteger(upstreamPort) || !(delayArg >= 0)) {
  process.stderr.write("usage: node delay_proxy.mjs UPSTREAM_PORT DELAY_MS\n");
  process.exit(2);
}
// Keep-alive upstream, so the proxy adds no connection set-up of its own.
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

const server = http.createServer((req, res) => {
  setTimeout(() => {
    const headers = { ...req.headers };
    delete headers.connection;
    const up = http.request(
      { host: "127.0.0.1", port: upstreamPort, method: req.method, path: req.url, headers, agent },
      (upRes) => {
        res.writeHead(upRes.statusCode, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on("error", (e) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(e));
    });
    up.end(); // GETs only: the readers under test send no request bodies
  }, delayArg);
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => process.exit(0));
