//! Bounded retry with jittered exponential backoff ("full jitter", as described in the AWS
//! Architecture Blog post "Exponential Backoff And Jitter", 2015). Pure: the caller supplies
//! the random number and does the sleeping.

/// Backoff schedule: attempt `n` (0-based) waits a uniformly random time in
/// `[0, min(cap_ms, base_ms * 2^n))` milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// First ceiling, milliseconds.
    pub base_ms: u64,
    /// Largest ceiling, milliseconds.
    pub cap_ms: u64,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            base_ms: 2,
            cap_ms: 100,
        }
    }
}

impl Backoff {
    /// Delay in microseconds before retry `attempt` (0-based), given a uniform random `r`.
    pub fn delay_us(&self, attempt: u32, r: u64) -> u64 {
        let ceiling_ms = self
            .base_ms
            .saturating_mul(1u64 << attempt.min(20))
            .min(self.cap_ms)
            .max(1);
        r % (ceiling_ms * 1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn delay_is_bounded(attempt in 0u32..100, r in any::<u64>()) {
            let b = Backoff::default();
            let d = b.delay_us(attempt, r);
            prop_assert!(d < b.cap_ms * 1000);
            prop_assert!(d < (b.base_ms << attempt.min(20)).max(1) * 1000);
        }
    }
}
