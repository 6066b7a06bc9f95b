//! Locking that survives a panic: a panic in one thread (a progress callback, one
//! page's render) must not poison the renderer's shared state for the other tabs,
//! for `Renderer`'s Drop or for the Ctrl-C handler, which still have to clean up.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, taking it over if a panic poisoned it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
