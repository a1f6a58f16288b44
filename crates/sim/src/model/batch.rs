//! The batch API in the model: validated whole first (core's batch rules, then each
//! operation as its endpoint validates it, the first refusal refusing the batch and nothing
//! run, but an unknown kit, which refuses its operation only), then each operation as alone (the runner applies them in order; the generator makes
//! only batches whose outcomes do not depend on the order).

use super::{error_answer, Model};
use crate::made::Resolved;
use crate::ops::Op;
use crate::{request, Answer};

impl Model {
    /// The answer that refuses the batch of `ops` whole, if any.
    pub fn batch_refusal(&self, ops: &[Op]) -> Option<Answer> {
        let resolved = vec![Resolved::default(); ops.len()];
        let req = request::batch(ops, &resolved);
        let body = req.body.unwrap_or_default();
        let checked = super::parse::<allot_core::operations::BatchBody>(body)
            .and_then(|b| allot_core::operations::batch(&b, &self.limits));
        if let Err(e) = checked {
            return Some(error_answer(&e));
        }
        ops.iter().zip(&resolved).find_map(|(op, r)| {
            let alone = request::of(op, r)?;
            // A kit the tenant does not have refuses its operation alone, as an unknown SKU does.
            let refuses =
                |e: &allot_core::AllotError| !matches!(e, allot_core::AllotError::NotFound { kind: "kit", .. });
            self.validate(op, &alone)
                .err()
                .filter(refuses)
                .map(|e| error_answer(&e))
        })
    }
}
