//! Query strings as types: each route's parameters are one struct, read by [`Q`], which
//! answers a malformed query in the API's error form. Values arrive as text and are parsed
//! here with errors that name the parameter.

use crate::error::ApiError;
use allot_core::job::JobFilter;
use allot_core::Result;
use allot_core::{AllotError, JobState, Limits};
use axum::extract::FromRequestParts;
use axum::extract::Query;
use axum::http::request::Parts;
use serde::Deserialize;

/// `axum::extract::Query<T>` with its rejection as `invalid_request`.
pub(super) struct Q<T>(pub T);

impl<T: serde::de::DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Q<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(v)| Q(v))
            .map_err(|e| AllotError::invalid(format!("malformed query string: {}", e.body_text())).into())
    }
}

/// `name`'s integer value, or `default` when absent.
fn integer(name: &str, value: &Option<String>, default: i64) -> Result<i64, ApiError> {
    match value {
        None => Ok(default),
        Some(v) => v
            .parse()
            .map_err(|_| AllotError::invalid(format!("query parameter `{name}` must be an integer")).into()),
    }
}

/// `?after=&limit=` of the paged lists (ledger, dead letters).
#[derive(Debug, Deserialize)]
pub(super) struct PageQuery {
    after: Option<String>,
    limit: Option<String>,
}

impl PageQuery {
    /// Entries with ids above this one, >= 0. Default 0.
    pub(super) fn after(&self) -> Result<i64, ApiError> {
        let after = integer("after", &self.after, 0)?;
        if after < 0 {
            return Err(AllotError::invalid(format!("after must be >= 0, got {after}")).into());
        }
        Ok(after)
    }

    /// Page size, 1..=`max_page_size`. Default 100.
    pub(super) fn limit(&self, limits: &Limits) -> Result<u32, ApiError> {
        Ok(allot_core::validate::page_size(
            integer("limit", &self.limit, allot_core::support::checks::DEFAULT_PAGE_SIZE)?,
            limits,
        )?)
    }
}

/// `?after=&limit=&types=&object=&sku=` of the change feed.
#[derive(Debug, Deserialize)]
pub(super) struct EventsQuery {
    after: Option<String>,
    limit: Option<String>,
    types: Option<String>,
    object: Option<String>,
    sku: Option<String>,
}

impl EventsQuery {
    /// The feed query, validated ([`allot_core::event::query`]); `resume` (a stream's
    /// `Last-Event-ID`) wins over `after`.
    pub(super) fn query(
        &self,
        resume: Option<i64>,
        limits: &Limits,
    ) -> Result<allot_core::event::EventQuery, ApiError> {
        let after = match resume {
            Some(cursor) => cursor,
            None => integer("after", &self.after, 0)?,
        };
        let limit = integer("limit", &self.limit, allot_core::support::checks::DEFAULT_PAGE_SIZE)?;
        Ok(allot_core::event::query(
            after,
            limit,
            self.types.as_deref(),
            (self.object.as_deref(), self.sku.as_deref()),
            limits,
        )?)
    }
}

/// `?state=&after=&limit=` of a queue's job list.
#[derive(Debug, Deserialize)]
pub(super) struct JobListQuery {
    state: Option<String>,
    tag: Option<String>,
    metadata: Option<String>,
    payload: Option<String>,
    #[serde(flatten)]
    page: PageQuery,
}

impl JobListQuery {
    /// Which jobs are listed: one state or all (`state` absent), with a tag or any.
    pub(super) fn filter(&self, limits: &Limits) -> Result<JobFilter, ApiError> {
        let state = match self.state.as_deref() {
            None => None,
            Some(s) => {
                Some(JobState::parse(s).ok_or_else(|| AllotError::invalid(format!("state: unknown job state `{s}`")))?)
            }
        };
        let tag = match &self.tag {
            None => None,
            Some(t) => allot_core::validate::tags("tag", vec![t.clone()], limits)?.pop(),
        };
        let metadata = (self.metadata.as_deref())
            .map(|m| allot_core::validate::metadata_filter(m, limits))
            .transpose()?;
        let payload = (self.payload.as_deref())
            .map(|p| allot_core::validate::payload_filter(p, limits))
            .transpose()?;
        Ok(JobFilter {
            state,
            tag,
            metadata,
            payload,
        })
    }

    /// The page.
    pub(super) fn page(&self) -> &PageQuery {
        &self.page
    }
}

/// `?from=&to=&limit=` of a resource's bookings and availability: a required window.
#[derive(Debug, Deserialize)]
pub(super) struct WindowQuery {
    from: Option<String>,
    to: Option<String>,
    limit: Option<String>,
}

impl WindowQuery {
    /// The half-open window `[from, to)`, validated like a booking's range.
    pub(super) fn window(
        &self,
        limits: &Limits,
    ) -> Result<(chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>), ApiError> {
        let get = |k: &str, v: &Option<String>| {
            v.clone()
                .ok_or_else(|| ApiError::from(AllotError::invalid(format!("query parameter `{k}` is required"))))
        };
        let (from, to) = (get("from", &self.from)?, get("to", &self.to)?);
        Ok(allot_core::validate::window("from", &from, "to", &to, limits)?)
    }

    /// Most bookings listed, 1..=`max_page_size`. Default 100.
    pub(super) fn limit(&self, limits: &Limits) -> Result<u32, ApiError> {
        Ok(allot_core::validate::page_size(
            integer("limit", &self.limit, allot_core::support::checks::DEFAULT_PAGE_SIZE)?,
            limits,
        )?)
    }
}

/// `?after=&limit=` of the cursor listings, whose cursor is a name or an id.
#[derive(Debug, Deserialize)]
pub(super) struct CursorQuery {
    after: Option<String>,
    limit: Option<String>,
}

impl CursorQuery {
    /// The cursor: a previous page's `next` (a name or id: 1..=`max_name_len` printable ASCII
    /// without spaces), or none.
    pub(super) fn after(&self, limits: &Limits) -> Result<Option<String>, ApiError> {
        match &self.after {
            None => Ok(None),
            Some(a) if !a.is_empty() && a.len() <= limits.max_name_len && a.bytes().all(|b| b.is_ascii_graphic()) => {
                Ok(Some(a.clone()))
            }
            Some(_) => Err(AllotError::invalid("after must be a previous page's next").into()),
        }
    }

    /// Page size, 1..=`max_page_size`. Default 100.
    pub(super) fn limit(&self, limits: &Limits) -> Result<u32, ApiError> {
        Ok(allot_core::validate::page_size(
            integer("limit", &self.limit, allot_core::support::checks::DEFAULT_PAGE_SIZE)?,
            limits,
        )?)
    }
}

/// `?after=&limit=&available_below=&prefix=` of `GET /v1/skus`.
#[derive(Debug, Deserialize)]
pub(super) struct SkuListQuery {
    available_below: Option<String>,
    prefix: Option<String>,
    #[serde(flatten)]
    page: CursorQuery,
}

impl SkuListQuery {
    /// The cursor.
    pub(super) fn after(&self, limits: &Limits) -> Result<Option<String>, ApiError> {
        self.page.after(limits)
    }

    /// The page size.
    pub(super) fn limit(&self, limits: &Limits) -> Result<u32, ApiError> {
        self.page.limit(limits)
    }

    /// The filter: low stock (`available_below`, an integer) and a name prefix (checked as a
    /// SKU name).
    pub(super) fn filter(&self, limits: &Limits) -> Result<allot_core::SkuFilter, ApiError> {
        let available_below = self
            .available_below
            .as_ref()
            .map(|_| integer("available_below", &self.available_below, 0))
            .transpose()?;
        if let Some(prefix) = &self.prefix {
            allot_core::validate::name("prefix", prefix, limits)?;
        }
        Ok(allot_core::SkuFilter {
            available_below,
            prefix: self.prefix.clone(),
        })
    }
}

/// `?status=&sku=&after=&limit=` of `GET /v1/holds`.
#[derive(Debug, Deserialize)]
pub(super) struct HoldListQuery {
    status: Option<String>,
    sku: Option<String>,
    #[serde(flatten)]
    page: CursorQuery,
}

impl HoldListQuery {
    /// The status listed (effective: an overdue hold is `expired`). Default `held`.
    pub(super) fn status(&self) -> Result<allot_core::hold::HoldStatus, ApiError> {
        let s = self.status.as_deref().unwrap_or("held");
        allot_core::hold::HoldStatus::parse(s)
            .ok_or_else(|| AllotError::invalid(format!("unknown hold status `{s}`")).into())
    }

    /// Only holds with a line of this SKU (a SKU name, checked as one).
    pub(super) fn sku(&self, limits: &Limits) -> Result<Option<&str>, ApiError> {
        if let Some(sku) = &self.sku {
            allot_core::validate::name("sku", sku, limits)?;
        }
        Ok(self.sku.as_deref())
    }

    /// The page.
    pub(super) fn page(&self) -> &CursorQuery {
        &self.page
    }
}

/// `?status=&location=&lot=&after=&limit=` of a SKU's units.
#[derive(Debug, Deserialize)]
pub(super) struct UnitListQuery {
    status: Option<String>,
    location: Option<String>,
    lot: Option<String>,
    #[serde(flatten)]
    page: PageQuery,
}

impl UnitListQuery {
    /// The filter; `location` and `lot` as units store them.
    pub(super) fn filter(&self, limits: &Limits) -> Result<allot_core::unit::UnitFilter, ApiError> {
        let status = match self.status.as_deref() {
            None => None,
            Some(s) => Some(
                allot_core::unit::UnitStatus::parse(s)
                    .ok_or_else(|| ApiError::from(AllotError::invalid(format!("unknown unit status `{s}`"))))?,
            ),
        };
        // Compared as stored: identifiers in NFC.
        let ident = |k: &str, v: &Option<String>| {
            v.as_deref()
                .map(|v| allot_core::input::identifier(k, v, "max_unit_field_len", limits.max_unit_field_len))
                .transpose()
        };
        Ok(allot_core::unit::UnitFilter {
            status,
            location: ident("location", &self.location)?,
            lot: ident("lot", &self.lot)?,
        })
    }

    /// Units with ids above this one.
    pub(super) fn after(&self) -> Result<i64, ApiError> {
        self.page.after()
    }

    /// The page size.
    pub(super) fn limit(&self, limits: &Limits) -> Result<u32, ApiError> {
        self.page.limit(limits)
    }
}

/// `?wait_ms=` of `GET /v1/jobs/{id}`: how long to wait for the job to finish.
#[derive(Debug, Deserialize)]
pub(super) struct WaitQuery {
    wait_ms: Option<String>,
}

impl WaitQuery {
    /// The wait, 0..=`max_wait_ms` ms. Default 0 (answer at once).
    pub(super) fn wait(&self, limits: &Limits) -> Result<std::time::Duration, ApiError> {
        Ok(allot_core::validate::wait(
            integer("wait_ms", &self.wait_ms, 0)?,
            limits,
        )?)
    }
}
