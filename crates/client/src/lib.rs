//! # allot-client
//!
//! A Rust client of allot's HTTP API, generated at build time by progenitor from
//! `clients/openapi-3.0.json` (what `allot openapi --openapi-version 3.0` prints; a test of
//! the server keeps the file equal to it).

//!
//! ```no_run
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! let client = allot_client::Client::new("http://127.0.0.1:8080");
//! let key = allot_client::helpers::idempotency_key();
//! let body: allot_client::types::AllocationBody =
//!     serde_json::from_value(serde_json::json!({"lines": [{"sku": "HOT", "quantity": 2}]}))?;
//! let allocation = client.create_allocation().idempotency_key(key).body(body).send().await?;
//! println!("{}", allocation.id);
//! # Ok(()) }
//! ```
//!
//! With a key, give the `reqwest::Client` a default `Authorization: Bearer …` header and use
//! [`Client::new_with_client`].

#[allow(
    missing_docs,
    clippy::all,
    clippy::pedantic,
    clippy::too_many_lines,
    clippy::wildcard_imports
)]
mod generated {
    progenitor::generate_api!(spec = "../../clients/openapi-3.0.json", interface = Builder);
}

pub mod helpers;

pub use generated::*;
