//! The content blocks a call adds to its result (the `toolhost:tool/content` import),
//! kept while they fit the call's result limit; past it, none more is kept and the
//! call fails as a result too large.

use crate::tool::{Content, json_len};

/// One call's added content blocks and their size so far.
#[derive(Debug, Default)]
pub(crate) struct Attached {
    blocks: Vec<Content>,
    bytes: usize,
    limit: usize,
    over: bool,
}

impl Attached {
    /// Nothing added yet, under a limit of `limit` bytes (of JSON, binary data as base64).
    pub(crate) fn within(limit: usize) -> Attached {
        Attached { limit, ..Attached::default() }
    }

    /// Keeps `block` when it fits what is left of the limit; else drops it and every
    /// later one.
    pub(crate) fn add(&mut self, block: Content) {
        if self.over {
            return;
        }
        self.bytes = self.bytes.saturating_add(json_len(&block));
        if self.bytes > self.limit {
            self.over = true;
            self.blocks = Vec::new();
            return;
        }
        self.blocks.push(block);
    }

    /// Whether more was added than the limit holds.
    pub(crate) fn over_limit(&self) -> bool {
        self.over
    }

    /// The bytes the kept blocks take.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// The kept blocks, in the order they were added, leaving none.
    pub(crate) fn take(&mut self) -> Vec<Content> {
        std::mem::take(&mut self.blocks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_kept_in_order_until_the_limit_and_none_after() {
        let mut attached = Attached::within(1000);
        attached.add(Content::text("one"));
        attached.add(Content::image(vec![0; 30], "image/png"));
        assert!(!attached.over_limit());
        assert_eq!(attached.take(), [Content::text("one"), Content::image(vec![0; 30], "image/png")]);

        let mut attached = Attached::within(1000);
        attached.add(Content::text("small"));
        attached.add(Content::image(vec![0; 1000], "image/png"));
        attached.add(Content::text("after"));
        assert!(attached.over_limit());
        assert!(attached.take().is_empty());
    }
}
