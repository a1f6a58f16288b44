//! The document the client is generated from is the server's own: `clients/openapi-3.0.json`
//! equals what `allot openapi --openapi-version 3.0` prints (the route table's document as
//! OpenAPI 3.0.3), so a route or a type changed on the server changes the client, or this
//! test fails.

#[test]
fn the_committed_document_is_the_servers() {
    let doc = allot_server::openapi_30(serde_json::to_value(allot_server::openapi()).unwrap());
    let expected = format!("{}\n", serde_json::to_string_pretty(&doc).unwrap());
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../clients/openapi-3.0.json");
    let committed = std::fs::read_to_string(&path).unwrap();
    assert!(
        committed == expected,
        "clients/openapi-3.0.json is stale: run `cargo run -p allot -- openapi --openapi-version 3.0 > clients/openapi-3.0.json`"
    );
}
