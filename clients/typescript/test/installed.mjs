// The packed client as a user installs it (`npm install allot-client-<version>.tgz`), against a
// live `allot serve` (ALLOT_URL): the entry point resolves, its helpers are there, a call works.
import assert from "node:assert/strict";
import { createAllotClient, idempotencyKey, verifyWebhook } from "allot-client";

assert.equal(typeof verifyWebhook, "function");
assert.match(idempotencyKey(), /^allot-/);
const client = createAllotClient(process.env.ALLOT_URL ?? "http://127.0.0.1:8080");
const { data, error } = await client.GET("/healthz");
assert.equal(error, undefined);
assert.equal(data.status, "ok");
console.log("installed client: ok");
