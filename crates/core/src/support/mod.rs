//! What every domain uses and none owns: errors, the input policy for scalars and documents,
//! the named limits, the clock, retry backoff, a listing's page, and the validation rules the
//! domains share.

pub mod at_once;
pub mod checks;
pub mod clock;
pub mod error;
pub mod input;
pub mod instant;
pub mod limits;
pub mod page;
pub mod retry;
