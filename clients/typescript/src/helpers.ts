// What the generated types do not give: an idempotency key per logical operation, cursor
// listings as async iterators, and verification of webhook deliveries (Standard Webhooks:
// HMAC-SHA256 over `{id}.{timestamp}.{body}` with a `whsec_` secret).
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import type createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Client = ReturnType<typeof createClient<paths>>;
type LedgerEntry = components["schemas"]["LedgerEntry"];

/** A new key: make one per logical operation and send it again on every retry of it. */
export function idempotencyKey(): string {
  return `allot-${randomUUID()}`;
}

/**
 * Every ledger entry of `sku`, oldest first, `page` at a time, following each page's `next`
 * (null on the last page, so no empty page is asked for).
 */
export async function* ledgerEntries(client: Client, sku: string, page = 100): AsyncGenerator<LedgerEntry> {
  let after = 0;
  for (;;) {
    const { data, error } = await client.GET("/v1/skus/{sku}/ledger", {
      params: { path: { sku }, query: { after, limit: page } },
    });
    if (error || !data) throw new Error(`ledger of ${sku}: ${JSON.stringify(error)}`);
    yield* data.entries;
    if (data.next === null || data.next === undefined) return;
    after = data.next;
  }
}

/** The headers of a delivery that its signature covers. */
export interface DeliveryHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/**
 * Check a delivery: its timestamp within `toleranceS` of now, and one of its `v1,`
 * signatures made with `secret` over the raw `body`. Throws when it must be refused;
 * compares in constant time.
 */
export function verifyWebhook(secret: string, headers: DeliveryHeaders, body: Buffer, toleranceS = 300, nowS = Math.floor(Date.now() / 1000)): void {
  if (!secret.startsWith("whsec_")) throw new Error("secret is not whsec_…");
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const stamp = Number(headers["webhook-timestamp"]);
  if (!Number.isFinite(stamp) || Math.abs(nowS - stamp) > toleranceS) throw new Error("timestamp outside the tolerance");
  const expected = createHmac("sha256", key)
    .update(`${headers["webhook-id"]}.${headers["webhook-timestamp"]}.`)
    .update(body)
    .digest();
  const signed = headers["webhook-signature"]
    .split(" ")
    .filter((s) => s.startsWith("v1,"))
    .map((s) => Buffer.from(s.slice(3), "base64"))
    .some((tag) => tag.length === expected.length && timingSafeEqual(tag, expected));
  if (!signed) throw new Error("no signature matches");
}
