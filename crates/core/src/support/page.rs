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
    /// The page of `rows`, read with [`Page::probe_limit`]: a row past `limit` means another
    /// page follows; it is dropped, and `cursor` of the last kept item is `next`.
    pub fn from_probe(mut rows: Vec<T>, limit: u32, cursor: impl Fn(&T) -> C) -> Self {
        let more = rows.len() > limit as usize;
        rows.truncate(limit as usize);
        let next = if more { rows.last().map(cursor) } else { None };
        Listed { items: rows, next }
    }

    /// The same page with `next` set from the last item when `cut` (a page a backend ended
    /// early, by a bound other than `limit`, such as a page's bytes).
    pub fn cut_short(mut self, cut: bool, cursor: impl Fn(&T) -> C) -> Self {
        if cut && self.next.is_none() {
            self.next = self.items.last().map(cursor);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_past_the_limit_gives_next_and_is_dropped() {
        let page = Page::new(0_i64, 3);
        assert_eq!(page.probe_limit(), 4);
        let full = Listed::from_probe(vec![1, 2, 3, 4], page.limit, |x| *x);
        assert_eq!((full.items, full.next), (vec![1, 2, 3], Some(3)));
        // Exactly `limit` rows: the last page, no `next` (no empty page to read after it).
        let last = Listed::from_probe(vec![1, 2, 3], page.limit, |x| *x);
        assert_eq!((last.items, last.next), (vec![1, 2, 3], None));
        let empty = Listed::<i64, i64>::from_probe(vec![], page.limit, |x| *x);
        assert_eq!((empty.items.len(), empty.next), (0, None));
    }

    #[test]
    fn a_page_cut_short_carries_next() {
        let cut = Listed::from_probe(vec![1, 2], 3, |x: &i64| *x).cut_short(true, |x| *x);
        assert_eq!(cut.next, Some(2));
        let whole = Listed::from_probe(vec![1, 2], 3, |x: &i64| *x).cut_short(false, |x| *x);
        assert_eq!(whole.next, None);
        assert_eq!(
            Listed::<i64, i64>::from_probe(vec![], 3, |x| *x)
                .cut_short(true, |x| *x)
                .next,
            None
        );
    }
}
