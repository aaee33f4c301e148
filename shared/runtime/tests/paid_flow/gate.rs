//! A [`Gate`] lets a stand-in's handler hold a request until the test releases it (or, at
//! the latest, until [`HOLD_LIMIT`], within the stand-in's lifetime).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::Notify;

/// Longest a gate holds a request before letting it through on its own.
pub const HOLD_LIMIT: Duration = Duration::from_secs(50);

/// Holds the next request that passes through it, once armed, until released.
#[derive(Debug, Default)]
pub struct Gate {
    armed: AtomicBool,
    reached: Notify,
    release: Notify,
}

impl Gate {
    /// Holds the next request that passes.
    pub fn arm(&self) {
        self.armed.store(true, Ordering::SeqCst);
    }

    /// Called by a handler: when armed, disarms, signals [`Gate::reached`] and waits for
    /// [`Gate::release`] (at most [`HOLD_LIMIT`]); otherwise returns at once.
    pub async fn pass(&self) {
        if self.armed.swap(false, Ordering::SeqCst) {
            self.reached.notify_one();
            let _ = tokio::time::timeout(HOLD_LIMIT, self.release.notified()).await;
        }
    }

    /// Resolves once a request is being held (a hold that happened earlier counts).
    pub async fn reached(&self) {
        self.reached.notified().await;
    }

    /// Lets the held request (or the next one to be held) go on.
    pub fn release(&self) {
        self.release.notify_one();
    }
}
