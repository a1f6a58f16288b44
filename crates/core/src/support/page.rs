//! One page of a listing. Every listing of the store traits reads the items after a cursor,
//! at most a limit ([`Page`]), and answers with the items and the cursor of the page that
//! follows, `None` on the last ([`Listed`]). A backend reads one row more than the page
//! holds ([`Page::probe_limit`]) to know whether another page follows: the classic
//! keyset ("seek") pagination, with the has-more probe of Stripe's `has_more`.

/// Which page of a listing to read: the items after the cursor `after` (the last item of the
/// page before; the listing's start for a first page: `None`, or `0` for id cursors), in the
/// listing's order, at most `limit` (a positive count the caller has bounded by
/// `max_page_size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page<C> {
    /// The cursor: items strictly after it.
    pub after: C,
    /// Items at most.
    pub limit: u32,
}

impl<C> Page<C> {
    /// The page of at most `limit` items after `after`.
    pub fn new(after: C, limit: u32) -> Self {
        Page { after, limit }
    }

    /// Rows a backend reads: one more than the page holds, whose presence says another page
    /// follows (it is not returned).
    pub fn probe_limit(&self) -> u32 {
        self.limit.saturating_add(1)
    }
}

/// A page of a listing as read: `items` (at most the page's `limit`, in the listing's
/// order) and `next`, the cursor to send as `after` for the page that follows; `None` on the
/// last page, so a client pages until `next` is `None` and never reads an empty page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed<T, C> {
    /// The page's items.
    pub items: Vec<T>,
    /// The cursor of the next page; `None` on the last.
    pub next: Option<C>,
}

impl<T, C> Listed<T, C> {
    /// The page of `rows`, read with `page`'s [`Page::probe_limit`]: a row past its `limit`
    /// means another page follows; it is dropped, and `cursor` of the last kept item is
    /// `next`.
    pub fn from_probe<P>(mut rows: Vec<T>, page: &Page<P>, cursor: impl Fn(&T) -> C) -> Self {
        let limit = page.limit as usize;
        let more = rows.len() > limit;
        rows.truncate(limit);
        let next = if more { rows.last().map(cursor) } else { None };
        Listed { items: rows, next }
    }

    /// The page of `items` (read with `limit` itself, not the probe) whose backend knows
    /// whether `more` items follow the last one (SQL's `lead` over the listing, which also
    /// sees past a page ended by a bound other than `limit`, such as its bytes).
    pub fn with_more(items: Vec<T>, more: bool, cursor: impl Fn(&T) -> C) -> Self {
        let next = if more { items.last().map(cursor) } else { None };
        Listed { items, next }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_past_the_limit_gives_next_and_is_dropped() {
        let page = Page::new(0_i64, 3);
        assert_eq!(page.probe_limit(), 4);
        let full = Listed::from_probe(vec![1, 2, 3, 4], &page, |x| *x);
        assert_eq!((full.items, full.next), (vec![1, 2, 3], Some(3)));
        // Exactly `limit` rows: the last page, no `next` (no empty page to read after it).
        let last = Listed::from_probe(vec![1, 2, 3], &page, |x| *x);
        assert_eq!((last.items, last.next), (vec![1, 2, 3], None));
        let empty = Listed::<i64, i64>::from_probe(vec![], &page, |x| *x);
        assert_eq!((empty.items.len(), empty.next), (0, None));
    }

    #[test]
    fn a_page_ended_early_carries_next_only_when_more_follow() {
        assert_eq!(Listed::with_more(vec![1, 2], true, |x: &i64| *x).next, Some(2));
        assert_eq!(Listed::with_more(vec![1, 2], false, |x: &i64| *x).next, None);
        assert_eq!(Listed::<i64, i64>::with_more(vec![], true, |x| *x).next, None);
    }
}
