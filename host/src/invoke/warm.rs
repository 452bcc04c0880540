//! Instances made before their call arrives. Per component a few fresh, never-used
//! instances wait, made by one background thread from the pre-linked component; a
//! call takes one, uses it once, and hands its store back to that thread to be dropped,
//! so neither instantiation nor teardown is on the call's path. No instance, store or
//! memory ever serves two calls. With none ready (calls outpacing the thread), a call
//! makes its own, as it would without them.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use wasmtime::Store;
use wasmtime::component::{Instance, InstancePre};

use super::within;
use crate::mutex::lock;
use crate::runtime::{PREWARM_SLOTS, Prewarm, Runtime};
use crate::sandbox::{CallState, EmptyRoot, GrantError, Grants, Limits};

/// How often the thread looks for components that have gone idle.
const IDLE_CHECK: Duration = Duration::from_secs(1);

/// While jobs come less than this apart, the thread looks for the next one every
/// [`ACTIVE_POLL`] (for this long after the last) instead of waiting to be woken: a
/// call that hands over its store while the thread sleeps this way pays no wake-up
/// (a `futex` wake, on a virtual machine an inter-processor interrupt: a third of a
/// paced call's time). Calls further apart wake it, and it does not poll after them.
const ACTIVE_FOR: Duration = Duration::from_millis(5);

/// How often the thread looks for jobs while active: at most five wake-ups of its
/// own after its last job.
const ACTIVE_POLL: Duration = Duration::from_millis(1);

/// Used stores waiting for the thread to drop them; beyond this a call drops its own,
/// so that back-to-back calls cannot pile up instance slots faster than it frees them.
const MAX_DISCARDS_WAITING: usize = 4;

/// A fresh instance and its store, never used by a call.
pub(crate) struct Fresh {
    pub(crate) store: Store<CallState>,
    pub(crate) instance: Instance,
}

/// What one component's instances are made from.
pub(crate) struct Recipe {
    /// The component's name.
    pub(crate) component: Arc<str>,
    /// The pre-linked component.
    pub(crate) pre: InstancePre<CallState>,
    /// What its calls are granted.
    pub(crate) grants: Grants,
    /// The limits its calls run under.
    pub(crate) limits: Limits,
}

/// A store for one call of `recipe`'s component: its grants, its memory limit, and an
/// epoch deadline for its time limit (a call sets it again when it starts).
pub(crate) fn new_store(recipe: &Recipe, empty_root: Option<&Arc<EmptyRoot>>) -> Result<Store<CallState>, GrantError> {
    let state = CallState::new(recipe.component.clone(), &recipe.grants, &recipe.limits, empty_root)?;
    let mut store = Store::new(recipe.pre.engine(), state);
    store.limiter(|state| state);
    store.set_epoch_deadline(Runtime::ticks_for(recipe.limits.time));
    Ok(store)
}

/// How many instances are ready across a host's components, and their memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PrewarmState {
    /// Instances made and not yet taken by a call.
    pub instances: usize,
    /// The linear memory they were instantiated with, in bytes.
    pub memory_bytes: u64,
}

/// What is ready across a host's components, its bound, and the thread's backlog.
struct Counts {
    instances: AtomicUsize,
    bytes: AtomicU64,
    max_instances: usize,
    max_bytes: u64,
    /// Used stores sent to the thread and not dropped yet.
    discards_waiting: AtomicUsize,
    /// The preparing thread, to wake while it polls (see [`ACTIVE_FOR`]).
    thread: OnceLock<std::thread::Thread>,
}

impl Counts {
    /// Whether one more ready instance of `bytes` fits the bound.
    fn fits(&self, bytes: u64) -> bool {
        self.instances.load(Ordering::Acquire) < self.max_instances
            && self.bytes.load(Ordering::Acquire).saturating_add(bytes) <= self.max_bytes
    }

    /// Counts one more ready instance of `bytes`, if it fits. Only the preparing
    /// thread adds, so a check then an add cannot overshoot.
    fn hold(&self, bytes: u64) -> bool {
        let fits = self.fits(bytes);
        if fits {
            self.instances.fetch_add(1, Ordering::AcqRel);
            self.bytes.fetch_add(bytes, Ordering::AcqRel);
        }
        fits
    }

    /// Counts one more store for the thread to drop, unless it is behind.
    fn queue_discard(&self) -> bool {
        let queued = self.discards_waiting.fetch_add(1, Ordering::AcqRel) < MAX_DISCARDS_WAITING;
        if !queued {
            self.discarded();
        }
        queued
    }

    fn discarded(&self) {
        self.discards_waiting.fetch_sub(1, Ordering::AcqRel);
    }

    /// Wakes the preparing thread if it is polling: a call has taken a component's
    /// last ready instance, or the thread is behind.
    fn nudge(&self) {
        if let Some(thread) = self.thread.get() {
            thread.unpark();
        }
    }

    fn release(&self, bytes: u64) {
        self.instances.fetch_sub(1, Ordering::AcqRel);
        self.bytes.fetch_sub(bytes, Ordering::AcqRel);
    }
}

/// What the preparing thread is asked to do.
enum Job {
    /// Bring this component's ready instances up to their number.
    Fill(Weak<WarmPool>),
    /// Drop a store (one a call has finished with, or one never used, when its pool
    /// went), then fill the pool if one is named: one message, one wake-up, per call.
    Discard(Box<Store<CallState>>, Option<Weak<WarmPool>>),
}

/// The thread that prepares instances and drops used stores, for all of a host's
/// components; it ends when the host and every pool are gone.
pub(crate) struct Warmer {
    jobs: mpsc::Sender<Job>,
    counts: Arc<Counts>,
    settings: Prewarm,
}

impl Warmer {
    /// Starts the thread; with `per_component` 0 (or no thread to be had) nothing is
    /// prepared and every call makes its own instance.
    pub(crate) fn start(runtime: &Runtime, settings: Prewarm) -> Warmer {
        let (jobs, received) = mpsc::channel();
        let counts = Arc::new(Counts {
            instances: AtomicUsize::new(0),
            bytes: AtomicU64::new(0),
            max_instances: PREWARM_SLOTS,
            max_bytes: settings.memory_bytes,
            discards_waiting: AtomicUsize::new(0),
            thread: OnceLock::new(),
        });
        let mut settings = settings;
        if settings.per_component > 0 {
            let io = runtime.io_handle();
            let started = std::thread::Builder::new()
                .name("toolhost-prewarm".into())
                .spawn({
                    let counts = counts.clone();
                    move || work(&received, &counts, io)
                })
                .inspect_err(|e| {
                    tracing::warn!("cannot start the thread that prepares instances ({e}); calls make their own")
                });
            match started {
                Ok(handle) => drop(counts.thread.set(handle.thread().clone())),
                Err(_) => settings.per_component = 0,
            }
        }
        Warmer { jobs, counts, settings }
    }

    /// The ready instances of one component, filled from now on.
    pub(crate) fn pool(&self, runtime: &Runtime, recipe: Recipe) -> Arc<WarmPool> {
        let pool = Arc::new_cyclic(|me| WarmPool {
            recipe,
            empty_root: runtime.empty_root().cloned(),
            ready: Mutex::new(Vec::new()),
            bytes_each: AtomicU64::new(0),
            last_call: Mutex::new(Instant::now()),
            wanted: self.settings.per_component,
            idle: self.settings.idle,
            jobs: self.jobs.clone(),
            counts: self.counts.clone(),
            me: me.clone(),
        });
        pool.request_fill();
        pool
    }

    /// What is ready now.
    pub(crate) fn state(&self) -> PrewarmState {
        PrewarmState {
            instances: self.counts.instances.load(Ordering::Acquire),
            memory_bytes: self.counts.bytes.load(Ordering::Acquire),
        }
    }
}

/// The preparing thread's loop: jobs as they come, and a look for idle components
/// every [`IDLE_CHECK`]. Shortly after a job it polls rather than waits (see
/// [`ACTIVE_FOR`]), so the calls of a busy agent do not have to wake it.
fn work(jobs: &mpsc::Receiver<Job>, counts: &Counts, io: Option<tokio::runtime::Handle>) {
    // Instantiation may wait on the host's timers, and dropping a used store may drop
    // what the I/O runtime drives.
    let _context = io.as_ref().map(tokio::runtime::Handle::enter);
    let mut pools: Vec<Weak<WarmPool>> = Vec::new();
    // Polling until then: jobs are coming close together.
    let (mut last_job, mut active_until) = (Instant::now(), Instant::now());
    loop {
        let next = match jobs.try_recv() {
            Ok(job) => Ok(job),
            Err(mpsc::TryRecvError::Disconnected) => return,
            // std's channel makes a send a plain queue push while no receiver waits;
            // a call that needs the thread at once unparks it (`Counts::nudge`).
            Err(mpsc::TryRecvError::Empty) if Instant::now() < active_until => {
                std::thread::park_timeout(ACTIVE_POLL);
                continue;
            }
            Err(mpsc::TryRecvError::Empty) => jobs.recv_timeout(IDLE_CHECK),
        };
        match next {
            Ok(job) => {
                run(job, &mut pools, counts);
                let now = Instant::now();
                active_until = if now - last_job < ACTIVE_FOR { now + ACTIVE_FOR } else { now };
                last_job = now;
            }
            Err(RecvTimeoutError::Timeout) => pools.retain(|pool| match pool.upgrade() {
                Some(live) => {
                    live.shrink_if_idle();
                    true
                }
                None => false,
            }),
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// Does one job of the preparing thread.
fn run(job: Job, pools: &mut Vec<Weak<WarmPool>>, counts: &Counts) {
    match job {
        Job::Fill(pool) => fill(pools, pool),
        Job::Discard(store, refill) => {
            drop(store);
            counts.discarded();
            if let Some(pool) = refill {
                fill(pools, pool);
            }
        }
    }
}

/// Fills `pool`, if it is still served, and remembers it for the idle check.
fn fill(pools: &mut Vec<Weak<WarmPool>>, pool: Weak<WarmPool>) {
    if let Some(live) = pool.upgrade() {
        live.fill();
        if !pools.iter().any(|known| known.ptr_eq(&pool)) {
            pools.push(pool);
        }
    }
}

/// One component's ready instances.
pub(crate) struct WarmPool {
    recipe: Recipe,
    empty_root: Option<Arc<EmptyRoot>>,
    /// Each with the memory it holds, newest last.
    ready: Mutex<Vec<(Fresh, u64)>>,
    /// The memory the last instance made held: what the next one will need.
    bytes_each: AtomicU64,
    last_call: Mutex<Instant>,
    wanted: usize,
    idle: Duration,
    jobs: mpsc::Sender<Job>,
    counts: Arc<Counts>,
    me: Weak<WarmPool>,
}

impl WarmPool {
    /// A ready instance for a call that starts now, if there is one.
    pub(crate) fn take(&self) -> Option<Fresh> {
        *lock(&self.last_call) = Instant::now();
        let (fresh, bytes) = lock(&self.ready).pop()?;
        self.counts.release(bytes);
        // Made before one of its secrets was set, changed or removed: the call makes
        // its own, and the pool refills with the secrets as they are now.
        if !self.recipe.grants.secrets.holds(&fresh.store.data().secrets) {
            self.hand_over(fresh.store, Some(self.me.clone()));
            return None;
        }
        Some(fresh)
    }

    /// Drops a finished call's store. With `offload`, the thread drops it (resetting
    /// its memory is the slow part) and then makes the instance that replaces the one
    /// taken; without (other calls are running), or when the thread is behind or
    /// gone, it is dropped here and the pool waits for a call that comes alone.
    pub(crate) fn finish(&self, store: Store<CallState>, offload: bool) {
        if offload && self.wanted > 0 {
            self.hand_over(store, Some(self.me.clone()));
        } else {
            drop(store);
        }
    }

    /// Sends `store` to the thread to drop (then to fill `refill`), or drops it here.
    fn hand_over(&self, store: Store<CallState>, refill: Option<Weak<WarmPool>>) {
        if !self.counts.queue_discard() {
            return drop(store);
        }
        if let Err(mpsc::SendError(job)) = self.jobs.send(Job::Discard(Box::new(store), refill)) {
            self.counts.discarded();
            return drop(job);
        }
        if lock(&self.ready).is_empty() || self.counts.discards_waiting.load(Ordering::Acquire) > 1 {
            self.counts.nudge();
        }
    }

    /// What a store for this component is made from, for a call that makes its own.
    pub(crate) fn recipe(&self) -> &Recipe {
        &self.recipe
    }

    fn request_fill(&self) {
        if self.wanted > 0 {
            // Fails only when the thread is gone, and then nothing is prepared.
            let _ = self.jobs.send(Job::Fill(self.me.clone()));
        }
    }

    /// On the preparing thread: makes instances until the component has its number,
    /// unless it is idle or the host's bound is reached.
    fn fill(&self) {
        while lock(&self.ready).len() < self.wanted
            && lock(&self.last_call).elapsed() < self.idle
            // Not made just to be dropped: at the bound, every call would ask again.
            && self.counts.fits(self.bytes_each.load(Ordering::Acquire))
        {
            let Some(fresh) = self.make() else { return };
            let bytes = fresh.store.data().memory_bytes;
            self.bytes_each.store(bytes, Ordering::Release);
            if !self.counts.hold(bytes) {
                return;
            }
            lock(&self.ready).push((fresh, bytes));
        }
    }

    /// A fresh instance, or `None` when making one failed (the call that wants one will
    /// make its own and report why).
    fn make(&self) -> Option<Fresh> {
        let mut store = match new_store(&self.recipe, self.empty_root.as_ref()) {
            Ok(store) => store,
            Err(error) => {
                tracing::debug!(component = %self.recipe.component, "cannot prepare an instance: {error}");
                return None;
            }
        };
        let instantiated =
            futures::executor::block_on(within(self.recipe.limits.time, self.recipe.pre.instantiate_async(&mut store)));
        match instantiated {
            Some(Ok(instance)) => Some(Fresh { store, instance }),
            Some(Err(error)) => {
                tracing::debug!(component = %self.recipe.component, "cannot prepare an instance: {error:#}");
                None
            }
            None => None,
        }
    }

    /// Drops every ready instance if the component has had no call for its idle time
    /// (its next call fills it again).
    fn shrink_if_idle(&self) {
        if lock(&self.last_call).elapsed() >= self.idle {
            drop(self.take_all());
        }
    }

    /// Every ready instance, no longer counted as ready.
    fn take_all(&self) -> Vec<Fresh> {
        let taken: Vec<(Fresh, u64)> = std::mem::take(&mut *lock(&self.ready));
        taken
            .into_iter()
            .map(|(fresh, bytes)| {
                self.counts.release(bytes);
                fresh
            })
            .collect()
    }
}

impl Drop for WarmPool {
    /// A component gone from the host (a reload removed or replaced it) takes its
    /// ready instances with it, dropped on the preparing thread.
    fn drop(&mut self) {
        for fresh in self.take_all() {
            self.hand_over(fresh.store, None);
        }
    }
}
