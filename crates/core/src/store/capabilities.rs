//! What a store can do and where its "now" comes from, as one value: the backend, the clock,
//! and per kind of work the strategies it runs and the one it runs when a request names none.
//! Every question about it ([`Capable::supports`], [`Capable::now`], …) is answered from the
//! value, so a decorator states what it changes (`allot_redis::RedisGated` adds the Redis
//! strategies) and forwards nothing.

use crate::job::ClaimStrategy;
use crate::strategy::{Backend, BookingStrategy, Strategy, UnitStrategy};
use crate::support::clock::Clock;
use crate::support::error::{AllotError, Result};
use std::sync::Arc;

/// A store's capabilities.
#[derive(Clone)]
pub struct Capabilities {
    /// Which backend this is.
    pub backend: Backend,
    /// Where "now" comes from (see [`crate::support::clock`]).
    pub clock: Arc<dyn Clock>,
    /// The stock strategies it runs, and the default.
    pub stock: (Vec<Strategy>, Strategy),
    /// The unit strategies it runs, and the default.
    pub units: (Vec<UnitStrategy>, UnitStrategy),
    /// The booking strategies it runs, and the default.
    pub bookings: (Vec<BookingStrategy>, BookingStrategy),
    /// The claim strategies it runs, and the default.
    pub claims: (Vec<ClaimStrategy>, ClaimStrategy),
}

impl std::fmt::Debug for Capabilities {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Capabilities")
            .field("backend", &self.backend)
            .field("stock", &self.stock)
            .field("units", &self.units)
            .field("bookings", &self.bookings)
            .field("claims", &self.claims)
            .finish_non_exhaustive()
    }
}

/// A store that has [`Capabilities`]; every other method here is answered from them.
pub trait Capable: Send + Sync + 'static {
    /// The capabilities.
    fn capabilities(&self) -> &Capabilities;

    /// Which backend this is.
    fn backend(&self) -> Backend {
        self.capabilities().backend
    }

    /// Whether this store can run the stock `strategy`.
    fn supports(&self, strategy: Strategy) -> bool {
        self.capabilities().stock.0.contains(&strategy)
    }

    /// `Ok` when this store can run `strategy`, else `unsupported_strategy` naming both.
    fn require(&self, strategy: Strategy) -> Result<()> {
        if self.supports(strategy) {
            Ok(())
        } else {
            Err(AllotError::unsupported_strategy(strategy.name(), self.backend().name()))
        }
    }

    /// The stock strategy used when neither the request nor the server names one.
    fn default_strategy(&self) -> Strategy {
        self.capabilities().stock.1
    }

    /// Now, from the store's clock: the instant every decision of this store is made at, and
    /// the one callers (validation defaults, sweepers) must use too.
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.capabilities().clock.now()
    }

    /// The unit strategy used when a request names none.
    fn default_unit_strategy(&self) -> UnitStrategy {
        self.capabilities().units.1
    }

    /// Whether this store can run the unit strategy.
    fn supports_units(&self, strategy: UnitStrategy) -> bool {
        self.capabilities().units.0.contains(&strategy)
    }

    /// The booking strategy used when a request names none.
    fn default_booking_strategy(&self) -> BookingStrategy {
        self.capabilities().bookings.1
    }

    /// Whether this store can run the booking strategy.
    fn supports_booking(&self, strategy: BookingStrategy) -> bool {
        self.capabilities().bookings.0.contains(&strategy)
    }

    /// Whether this store can run the claim strategy.
    fn supports_claim(&self, strategy: ClaimStrategy) -> bool {
        self.capabilities().claims.0.contains(&strategy)
    }

    /// The claim strategy used when a request names none.
    fn default_claim_strategy(&self) -> ClaimStrategy {
        self.capabilities().claims.1
    }
}
