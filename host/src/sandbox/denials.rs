//! The log of what the sandbox denied during one call, so that a call that then fails
//! can tell the model what was denied instead of the guest's libc guess
//! ("Non-recoverable error", "No such file or directory").

use std::sync::{Arc, Mutex};

use crate::mutex::lock;

/// What the sandbox denied during one call, in words for the model. Shared between
/// the call's store and its HTTP hooks.
#[derive(Debug, Clone, Default)]
pub(crate) struct Denials(Arc<Mutex<Vec<Denial>>>);

/// One denial.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Denial {
    /// What was denied, naming the host, address or path.
    pub(crate) what: String,
    /// Whether it was a file opened, which language runtimes also do on their own
    /// (Python looks for its sources to print a traceback): such a denial explains the
    /// tool's own error, but is not taken to explain a crash.
    pub(crate) file: bool,
}

impl Denials {
    /// Notes a denied network use (repeats are noted once).
    pub(crate) fn record(&self, what: String) {
        self.push(Denial { what, file: false });
    }

    /// Notes a denied file open (repeats are noted once).
    pub(crate) fn record_file(&self, what: String) {
        self.push(Denial { what, file: true });
    }

    fn push(&self, denial: Denial) {
        let mut list = lock(&self.0);
        if !list.contains(&denial) {
            list.push(denial);
        }
    }

    /// Everything denied so far, in order.
    pub(crate) fn take(&self) -> Vec<Denial> {
        std::mem::take(&mut *lock(&self.0))
    }
}
