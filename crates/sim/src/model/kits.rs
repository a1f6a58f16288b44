//! The model's kits: written only over the tenant's count-tracked SKUs (the first component in
//! SKU order that is not one refuses the write), read with how many whole kits are available,
//! and taken by allocations and holds as their components' demand, summed with the plain
//! lines' of the same SKU before anything is checked.

use super::{Done, Model};
use crate::ops::KITS;
use allot_core::AllotError;
use serde_json::{json, Value};

/// A kit's components, by SKU.
pub(super) type Components = Vec<(&'static str, i64)>;

impl Model {
    /// `PUT /v1/kits/{kit}` (the body checked by the core first).
    pub(super) fn put_kit(
        &mut self,
        kit: &'static str,
        components: &[(&'static str, i64)],
    ) -> Result<Done, AllotError> {
        let mut sorted = components.to_vec();
        sorted.sort();
        for (sku, _) in &sorted {
            self.counted(sku)?;
        }
        let view = kit_view(kit, &sorted);
        self.kits.insert(kit, sorted);
        Ok((200, view, None))
    }

    /// `GET /v1/kits/{kit}`: each component with its SKU's available, and the whole kits they
    /// make (the scarcest component's `available / quantity`).
    pub(super) fn get_kit(&self, kit: &str) -> Result<Done, AllotError> {
        let components = self.kits.get(kit).ok_or_else(|| AllotError::not_found("kit", kit))?;
        let mut out = Vec::new();
        let mut whole = i64::MAX;
        for (sku, q) in components {
            let available = self.sku_view(sku)?["available"].as_i64().unwrap_or(0).max(0);
            whole = whole.min(available / q);
            out.push(json!({"sku": sku, "quantity": q, "available": available}));
        }
        Ok((200, json!({"kit": kit, "components": out, "available": whole}), None))
    }

    /// `lines` with each kit line turned into its components' demand, added to the first line
    /// of that SKU or appended (the core refused unknown kits before this runs).
    pub(super) fn expand_kits(&self, lines: &[(&'static str, i64)]) -> Vec<(&'static str, i64)> {
        let mut out: Vec<(&'static str, i64)> = lines.iter().filter(|(s, _)| !KITS.contains(s)).copied().collect();
        for (kit, n) in lines.iter().filter(|(s, _)| KITS.contains(s)) {
            for (sku, q) in self.kits.get(kit).into_iter().flatten() {
                match out.iter_mut().find(|(s, _)| s == sku) {
                    Some(line) => line.1 += q * n,
                    None => out.push((sku, q * n)),
                }
            }
        }
        out
    }

    /// The kits as the core's validation takes them.
    pub(super) fn core_kits(&self) -> allot_core::kit::Kits {
        self.kits
            .iter()
            .map(|(kit, components)| {
                let components = components
                    .iter()
                    .map(|(sku, quantity)| allot_core::kit::Component {
                        sku: sku.to_string(),
                        quantity: *quantity,
                    })
                    .collect();
                (
                    kit.to_string(),
                    allot_core::kit::Kit {
                        kit: kit.to_string(),
                        components,
                    },
                )
            })
            .collect()
    }
}

/// A kit as `PUT` answers it.
fn kit_view(kit: &str, components: &[(&str, i64)]) -> Value {
    let components: Vec<Value> = components
        .iter()
        .map(|(sku, q)| json!({"sku": sku, "quantity": q}))
        .collect();
    json!({"kit": kit, "components": components})
}
