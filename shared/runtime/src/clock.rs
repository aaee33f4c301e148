//! The wall clock, the only place the service reads the time.

use std::time::{SystemTime, UNIX_EPOCH};

use payability_core::report::UtcMillis;

/// The current UTC instant in milliseconds.
pub fn now() -> UtcMillis {
    let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    UtcMillis(i64::try_from(since_epoch.as_millis()).unwrap_or(i64::MAX))
}
