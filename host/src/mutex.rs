//! The one way the host takes a mutex's lock.
//!
//! A lock whose holder panicked is taken anyway: everything the host guards with a
//! lock (a call's denials and captured output, the change listeners, a toolset's
//! derived registry) is changed by a single push or replace, so a panic cannot leave
//! it half-written, and refusing it would turn one panic into many.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, poisoned or not.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
