//! How many calls run at once, and the bounded queue in front of them. The instance
//! pool has a fixed number of slots; beyond them a call waits its turn (first come,
//! first served) for a bounded time in a bounded queue, and otherwise fails with a
//! message saying the host is busy, never with the pool's own error.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{Semaphore, SemaphorePermit};

/// The most calls the instance pool can hold at once (its component-instance slots).
pub(crate) const POOL_SLOTS: usize = 256;

/// Slots beyond those for instances made before their call (see [`Prewarm`]), so a
/// prepared instance never takes a running call's slot.
pub(crate) const PREWARM_SLOTS: usize = 64;

/// How long after two calls last ran at once a call still counts as one of a busy
/// host's (see [`Admission::alone`]).
const QUIET_FOR: Duration = Duration::from_millis(5);

/// How many instances are made before their call arrives: per component, a few fresh,
/// never-used ones made by a background thread, each used by one call, then thrown
/// away (see `invoke/warm.rs`). Start from `Prewarm::default()` and set fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Prewarm {
    /// Fresh instances kept ready per component; 0 makes every instance when its
    /// call arrives.
    pub per_component: usize,
    /// Linear memory all ready instances may hold together, in bytes (what they were
    /// instantiated with; pages they never touch are not resident).
    pub memory_bytes: u64,
    /// A component with no call for this long keeps no ready instance until its next.
    pub idle: Duration,
}

impl Default for Prewarm {
    /// Two per component, 256 MiB in all, given up after a minute without a call. At
    /// most 64 instances are ready at once, whatever `per_component` says.
    fn default() -> Prewarm {
        Prewarm { per_component: 2, memory_bytes: 256 << 20, idle: Duration::from_secs(60) }
    }
}

/// How many calls a host runs at once, and how many may wait for a turn, for how
/// long. Start from `Capacity::default()` and set fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Capacity {
    /// Calls that run at the same time (at most 256, the instance pool's size).
    pub max_concurrent_calls: usize,
    /// Calls that may wait for a turn; one more is refused at once.
    pub max_queued_calls: usize,
    /// How long a call may wait for a turn before it is refused. A call's own time
    /// limit starts only when it runs.
    pub queue_timeout: Duration,
}

impl Default for Capacity {
    /// Four calls per core (at least four) at once, up to 1,024 waiting, for 30 s each.
    fn default() -> Capacity {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Capacity {
            max_concurrent_calls: (4 * cores).clamp(4, POOL_SLOTS),
            max_queued_calls: 1024,
            queue_timeout: Duration::from_secs(30),
        }
    }
}

/// Why a call did not get a turn: what the host was doing, and how long it waited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Busy {
    /// Calls running when it gave up.
    pub(crate) running: usize,
    /// Calls waiting besides it.
    pub(crate) queued: usize,
    /// How long it waited.
    pub(crate) waited: Duration,
}

/// The turns: a semaphore of call slots and a count of the calls waiting.
#[derive(Debug)]
pub(crate) struct Admission {
    slots: Semaphore,
    capacity: Capacity,
    waiting: AtomicUsize,
    /// When two calls last ran at once, in nanoseconds after `started`.
    last_overlap: AtomicU64,
    started: Instant,
}

impl Admission {
    /// Turns for `capacity` (its concurrency held to the pool's size).
    pub(crate) fn new(mut capacity: Capacity) -> Admission {
        if capacity.max_concurrent_calls > POOL_SLOTS || capacity.max_concurrent_calls == 0 {
            tracing::warn!(
                "max_concurrent_calls {} is outside 1..={POOL_SLOTS} (the instance pool's size); using the nearest",
                capacity.max_concurrent_calls
            );
            capacity.max_concurrent_calls = capacity.max_concurrent_calls.clamp(1, POOL_SLOTS);
        }
        Admission {
            slots: Semaphore::new(capacity.max_concurrent_calls),
            capacity,
            waiting: AtomicUsize::new(0),
            last_overlap: AtomicU64::new(0),
            started: Instant::now(),
        }
    }

    /// A turn: at once when a slot is free, else after waiting in the queue (when it
    /// is not full) for at most the queue timeout. Needs a tokio context for the timer.
    pub(crate) async fn turn(&self) -> Result<SemaphorePermit<'_>, Busy> {
        if let Ok(permit) = self.slots.try_acquire() {
            return Ok(permit);
        }
        let started = Instant::now();
        // Join the queue only while it has room, so a refused call is never counted
        // as waiting (two refused at once would otherwise each see the other).
        let limit = self.capacity.max_queued_calls;
        let joined = self.waiting.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < limit).then_some(n + 1));
        if let Err(queued) = joined {
            return Err(self.busy(queued, started));
        }
        let _leave = Leave(&self.waiting);
        match tokio::time::timeout(self.capacity.queue_timeout, self.slots.acquire()).await {
            Ok(Ok(permit)) => Ok(permit),
            // The semaphore is never closed; a timeout or a closed one both mean "no turn".
            Ok(Err(_)) | Err(_) => Err(self.busy(self.waiting.load(Ordering::SeqCst).saturating_sub(1), started)),
        }
    }

    /// Calls waiting for a turn now.
    pub(crate) fn queued(&self) -> usize {
        self.waiting.load(Ordering::SeqCst)
    }

    /// Calls running now (holding a turn).
    pub(crate) fn running(&self) -> usize {
        self.capacity.max_concurrent_calls - self.slots.available_permits()
    }

    /// Whether a running call is alone: no other call runs, and none ran beside
    /// another for [`QUIET_FOR`]. Calls that overlap most of the time, with short
    /// gaps, are a busy host, whose cores are taken anyway: counting each gap as a
    /// lone call would hand work to the preparing thread while the callers already
    /// use every core.
    pub(crate) fn alone(&self) -> bool {
        let now = u64::try_from(self.started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        if self.running() > 1 {
            self.last_overlap.store(now, Ordering::Relaxed);
            return false;
        }
        let last = self.last_overlap.load(Ordering::Relaxed);
        last == 0 || now.saturating_sub(last) >= QUIET_FOR.as_nanos() as u64
    }

    /// How the host stands now, for a call that got no turn.
    pub(crate) fn busy(&self, queued: usize, started: Instant) -> Busy {
        Busy { running: self.running(), queued, waited: started.elapsed() }
    }
}

/// Leaves the queue when dropped (a turn taken, refused, or the caller gone).
struct Leave<'a>(&'a AtomicUsize);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_on<F: Future>(future: F) -> F::Output {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("runtime");
        runtime.block_on(future)
    }

    #[test]
    fn a_full_host_queues_then_refuses() {
        let admission = Admission::new(Capacity {
            max_concurrent_calls: 1,
            max_queued_calls: 1,
            queue_timeout: Duration::from_millis(20),
        });
        block_on(async {
            let first = admission.turn().await.expect("a free slot");
            // The queue holds one: this one waits out the timeout.
            let waited = admission.turn().await.expect_err("no slot came free");
            assert_eq!((waited.running, waited.queued), (1, 0));
            assert!(waited.waited >= Duration::from_millis(20));
            drop(first);
            assert!(admission.turn().await.is_ok(), "a slot came free");
        });
    }

    #[test]
    fn a_full_queue_refuses_at_once() {
        let admission = Admission::new(Capacity {
            max_concurrent_calls: 1,
            max_queued_calls: 0,
            queue_timeout: Duration::from_secs(60),
        });
        block_on(async {
            let _first = admission.turn().await.expect("a free slot");
            let refused = admission.turn().await.expect_err("the queue is full");
            assert_eq!((refused.running, refused.queued), (1, 0));
            assert!(refused.waited < Duration::from_secs(1));
        });
    }

    #[test]
    fn a_call_is_alone_only_a_while_after_calls_last_overlapped() {
        let admission = Admission::new(Capacity::default());
        block_on(async {
            let first = admission.turn().await.expect("a free slot");
            assert!(admission.alone(), "one call, none before it");
            let second = admission.turn().await.expect("a free slot");
            assert!(!admission.alone(), "two calls at once");
            drop(second);
            assert!(!admission.alone(), "one call, right after two ran at once");
            std::thread::sleep(QUIET_FOR);
            assert!(admission.alone(), "one call, a while after the last overlap");
            drop(first);
        });
    }

    #[test]
    fn concurrency_is_held_to_the_pool() {
        let admission = Admission::new(Capacity { max_concurrent_calls: 10_000, ..Capacity::default() });
        assert_eq!(admission.slots.available_permits(), POOL_SLOTS);
    }
}
