//! Swapping optimized code in. A component loaded on baseline code (see
//! [`Compiler`](crate::Compiler)) is compiled again by the optimizing compiler on a
//! thread of the host's, one component at a time, on one core, at the lowest
//! priority; then a new snapshot serves it in which only its code differs. A call
//! already running finishes on the code it started with; the next call takes the
//! optimized code. Nothing is swapped when the file changed meanwhile (the reload
//! that follows loads it again) or the host is gone.

use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, Weak};

use super::HostCore;
use super::snapshot::{ServedComponent, Snapshot};
use crate::load::{CodeFrom, Version, load_file};
use crate::mutex::lock;
use crate::runtime::Precompiled;
use crate::sys;

/// A component to optimize: which version of which file, with its bytes.
pub(super) struct Job {
    pub(super) source: PathBuf,
    pub(super) version: Version,
    pub(super) bytes: Vec<u8>,
}

/// The host's optimizing thread, started with its first job; it ends with the host.
#[derive(Default)]
pub(super) struct Optimizer {
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
}

impl Optimizer {
    /// Queues `job` for `core`'s optimizing thread. Without a thread to be had, the
    /// component keeps serving on baseline code (and says so in a warning).
    pub(super) fn optimize(&self, core: &Arc<HostCore>, job: Job) {
        let mut jobs = lock(&self.jobs);
        if jobs.is_none() {
            let (sender, received) = mpsc::channel();
            let core = Arc::downgrade(core);
            let started =
                std::thread::Builder::new().name("toolhost-optimize".into()).spawn(move || work(&received, &core));
            match started {
                Ok(_) => *jobs = Some(sender),
                Err(error) => {
                    return tracing::warn!(
                        "{}: serving on baseline code: no thread to optimize it ({error})",
                        job.source.display()
                    );
                }
            }
        }
        if let Some(sender) = jobs.as_ref()
            && let Err(mpsc::SendError(job)) = sender.send(job)
        {
            tracing::warn!("{}: serving on baseline code: the optimizing thread is gone", job.source.display());
        }
    }
}

/// The optimizing thread: each job in turn, while the host lives. It holds the host
/// only between compiles, so dropping the host is never kept waiting for one.
fn work(jobs: &mpsc::Receiver<Job>, core: &Weak<HostCore>) {
    sys::lower_this_threads_priority();
    while let Ok(job) = jobs.recv() {
        let Some(compilers) = core.upgrade().filter(|c| c.serves_baseline(&job)).map(|c| c.runtime.compilers()) else {
            continue;
        };
        let precompiled = compilers.precompile_in_background(&job.bytes);
        drop(compilers);
        let Some(core) = core.upgrade() else { return };
        match precompiled {
            Ok(precompiled) => core.swap_in(&job, &precompiled),
            Err(error) => {
                tracing::warn!("{}: serving on baseline code: cannot optimize it: {error}", job.source.display())
            }
        }
    }
}

impl HostCore {
    /// Whether the current snapshot serves `job`'s version of its file on baseline code.
    fn serves_baseline(&self, job: &Job) -> bool {
        self.current.load().unchanged(&job.source, Some(job.version)).is_some_and(|c| c.report.baseline)
    }

    /// Serves `job`'s component on `precompiled` code from a new snapshot, if the
    /// current one still serves it on baseline code; the code goes into the cache too.
    fn swap_in(&self, job: &Job, precompiled: &Precompiled) {
        let _one_at_a_time = lock(&self.reloading);
        let old = self.current.load_full();
        let Some(index) = old.components.iter().position(|c| c.source == job.source && c.version == job.version) else {
            return;
        };
        let limit = self.settings.component_limit();
        let loaded = match load_file(&self.runtime, &job.source, None, limit, CodeFrom::Precompiled(precompiled)) {
            Ok(loaded) => loaded,
            Err(error) => return tracing::warn!("serving on baseline code: {error}"),
        };
        if let Some(cache) = &self.cache {
            cache.store(&job.bytes, precompiled.code());
        }
        let mut components: Vec<ServedComponent> = old.components.iter().map(ServedComponent::kept).collect();
        components[index] = self.serve(loaded, &job.source, job.version);
        tracing::info!("{}: now serving optimized code", job.source.display());
        // Nothing a client sees changed: the listeners are not told.
        let snapshot = Snapshot::new(old.generation + 1, components, old.servers.clone(), old.load_warnings.clone());
        self.current.store(Arc::new(snapshot));
    }
}
