// The TypeScript client against a live `allot serve` (ALLOT_URL): create a SKU, allocate with
// an idempotency key (the retry replays), read the ledger by cursor, enqueue, claim and
// complete a job, and verify a real webhook delivery with the helpers.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createAllotClient, idempotencyKey, ledgerEntries, verifyWebhook, type DeliveryHeaders } from "../src/index.js";

const client = createAllotClient(process.env.ALLOT_URL ?? "http://127.0.0.1:8080");

let gotUrl: (url: string) => void = () => {};
const hookUrl = new Promise<string>((resolve) => (gotUrl = resolve));
const delivered = new Promise<{ headers: DeliveryHeaders; body: Buffer }>((resolve) => {
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      res.writeHead(204).end();
      receiver.close();
      resolve({ headers: req.headers as unknown as DeliveryHeaders, body: Buffer.concat(chunks) });
    });
  });
  receiver.listen(0, "127.0.0.1", () => {
    const { port } = receiver.address() as AddressInfo;
    gotUrl(`http://127.0.0.1:${port}/hook`);
  });
});

const hook = await client.POST("/v1/webhooks", { body: { url: await hookUrl, types: ["*"] } });
assert.ok(hook.data, JSON.stringify(hook.error));
const sku = await client.POST("/v1/skus", { body: { sku: "TS-1", on_hand: 10 } });
assert.equal(sku.data?.on_hand, 10);

const key = idempotencyKey();
const line = { lines: [{ sku: "TS-1", quantity: 1 }] };
const first = await client.POST("/v1/allocations", { body: line, params: { header: { "Idempotency-Key": key } } });
const again = await client.POST("/v1/allocations", { body: line, params: { header: { "Idempotency-Key": key } } });
assert.equal(first.data?.id, again.data?.id, "the retry replays the first answer");
assert.equal(again.response.headers.get("idempotent-replayed"), "true");
for (let i = 0; i < 4; i++) {
  await client.POST("/v1/allocations", { body: line, params: { header: { "Idempotency-Key": idempotencyKey() } } });
}
const paged: number[] = [];
for await (const entry of ledgerEntries(client, "TS-1", 2)) paged.push(entry.id);
const whole = await client.GET("/v1/skus/{sku}/ledger", { params: { path: { sku: "TS-1" }, query: { limit: 1000 } } });
assert.deepEqual(paged, whole.data?.entries.map((e) => e.id));
assert.equal(paged.length, 6);

await client.POST("/v1/queues/{queue}/jobs", { params: { path: { queue: "ts" } }, body: { jobs: [{ payload: { n: 1 } }] } });
const claimed = await client.POST("/v1/queues/{queue}/claims", { params: { path: { queue: "ts" } }, body: { max: 1 } });
const job = claimed.data!.jobs[0];
await client.POST("/v1/jobs/{id}/complete", { params: { path: { id: job.id } }, body: { lease_token: job.lease_token } });
const detail = await client.GET("/v1/jobs/{id}", { params: { path: { id: job.id } } });
assert.equal((detail.data as { state?: string } | undefined)?.state, "completed");

const { headers, body } = await delivered;
verifyWebhook(hook.data!.secret, headers, body);
assert.throws(() => verifyWebhook(hook.data!.secret, headers, Buffer.concat([body, Buffer.from(" ")])));
console.log("typescript client: ok");
