//! Fixed clocks the tests move. `Service::new` takes a plain `fn() -> UtcMillis`, which cannot
//! capture anything, and the tests of this binary run in parallel: each world takes one slot
//! of a static array of `AtomicI64` (`NOW[i]`), read by its own `fn`, and gives it back when
//! it is dropped.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Duration;

use payability_runtime::store::UtcMillis;

/// Clocks that may be in use at the same time (more than the tests that run at once).
const SLOTS: usize = 16;

/// The time of each slot, in milliseconds since the epoch.
static NOW: [AtomicI64; SLOTS] = [const { AtomicI64::new(0) }; SLOTS];
/// Which slots a world holds.
static TAKEN: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];

macro_rules! slot_clocks {
    ($($i:literal)*) => {
        /// The clock function of each slot.
        const CLOCKS: [fn() -> UtcMillis; SLOTS] = [$({
            fn read() -> UtcMillis {
                UtcMillis(NOW[$i].load(Ordering::SeqCst))
            }
            read
        }),*];
    };
}

slot_clocks!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);

/// One held clock; dropping it frees the slot.
#[derive(Debug)]
pub struct TestClock {
    slot: usize,
}

impl TestClock {
    /// Takes a free slot (waiting at most 60 s for one) and sets it to `start`.
    pub async fn take(start: UtcMillis) -> Self {
        for _ in 0..1200 {
            for slot in 0..SLOTS {
                if TAKEN[slot]
                    .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
                {
                    NOW[slot].store(start.0, Ordering::SeqCst);
                    return Self { slot };
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("no free test clock within 60 s");
    }

    /// The function to hand to `Service::new`.
    pub fn function(&self) -> fn() -> UtcMillis {
        CLOCKS[self.slot]
    }

    /// The clock's time.
    pub fn now(&self) -> UtcMillis {
        UtcMillis(NOW[self.slot].load(Ordering::SeqCst))
    }

    /// Moves the clock on.
    pub fn advance(&self, by: Duration) {
        let millis = i64::try_from(by.as_millis()).expect("a short step");
        NOW[self.slot].fetch_add(millis, Ordering::SeqCst);
    }
}

impl Drop for TestClock {
    fn drop(&mut self) {
        TAKEN[self.slot].store(false, Ordering::SeqCst);
    }
}
