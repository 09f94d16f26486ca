/**
 * The bench's webhook receiver, in its own process so it has its own core (as a merchant's
 * server would). Answers 200 at once and records when each request arrived, by its
 * `webhook-id` (or `x-bench-id` for raw posts), in wall-clock milliseconds with sub-ms precision.
 * IPC: sends {port} when listening; on "drain" sends back {receipts: [[id, atMs], …]} and clears.
 */
import http from "node:http";

let receipts = [];
const server = http.createServer((req, res) => {
  const id = req.headers["webhook-id"] ?? req.headers["x-bench-id"] ?? "";
  req.resume();
  req.on("end", () => {
    receipts.push([id, performance.timeOrigin + performance.now()]);
    res.writeHead(200, { "content-type": "text/plain", "content-length": "2" });
    res.end("ok");
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
process.on("message", (message) => {
  if (message === "drain") {
    process.send({ receipts });
    receipts = [];
  } else if (message === "stop") {
    server.close();
    process.exit(0);
  }
});
