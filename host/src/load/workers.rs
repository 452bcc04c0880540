//! Loading many files at once: a worker per core takes the next file until none are
//! left, and every file gets exactly one outcome, in the order of the files. A panic
//! while loading one file becomes that file's load error; the others load as usual.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::LoadError;

/// Told after each file: (files done, files in all, the file's name).
pub(crate) type Progress = dyn Fn(usize, usize, &str) + Send + Sync;

/// Runs `load` over every file on as many threads as the machine has cores (the
/// calling thread among them); the outcomes come back in the order of `files`.
pub(crate) fn load_all<T, F>(files: &[PathBuf], load: F, progress: Option<&Progress>) -> Vec<Result<T, LoadError>>
where
    T: Send + Sync,
    F: Fn(&Path) -> Result<T, LoadError> + Sync,
{
    let outcomes: Vec<OnceLock<Result<T, LoadError>>> = files.iter().map(|_| OnceLock::new()).collect();
    let (next, finished) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let work = || loop {
        let index = next.fetch_add(1, Ordering::Relaxed);
        let Some(path) = files.get(index) else { break };
        let _ = outcomes[index].set(load_guarded(path, &load));
        let done = finished.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(progress) = progress {
            tell_progress(progress, done, files.len(), path);
        }
    };
    let helpers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(files.len()).saturating_sub(1);
    std::thread::scope(|scope| {
        for _ in 0..helpers {
            // A thread that cannot be started leaves its share to the others.
            if let Err(error) = std::thread::Builder::new().name("toolhost-load".into()).spawn_scoped(scope, work) {
                tracing::debug!("loading on fewer threads: {error}");
            }
        }
        work();
    });
    outcomes
        .into_iter()
        .zip(files)
        .map(|(outcome, path)| outcome.into_inner().unwrap_or_else(|| Err(lost(path))))
        .collect()
}

/// `load(path)`, with a panic turned into the file's load error.
fn load_guarded<T>(path: &Path, load: &impl Fn(&Path) -> Result<T, LoadError>) -> Result<T, LoadError> {
    catch_unwind(AssertUnwindSafe(|| load(path))).unwrap_or_else(|panic| {
        let message = panic_message(panic.as_ref());
        tracing::error!("loading {} panicked: {message}", path.display());
        Err(LoadError::Component {
            path: path.to_path_buf(),
            reason: format!("loading it failed inside the host ({message}); the other components are not affected"),
        })
    })
}

/// Calls the progress callback; a panic in it is logged and does not stop loading.
fn tell_progress(progress: &Progress, done: usize, total: usize, path: &Path) {
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    if let Err(panic) = catch_unwind(AssertUnwindSafe(|| progress(done, total, &name))) {
        tracing::warn!("the load progress callback panicked: {}", panic_message(panic.as_ref()));
    }
}

/// The error for a file no worker reported on (it cannot happen unless a worker died).
fn lost(path: &Path) -> LoadError {
    LoadError::Component { path: path.to_path_buf(), reason: "loading it did not finish".into() }
}

/// What a panic said, when it said it with a string.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(message), _) => (*message).to_string(),
        (None, Some(message)) => message.clone(),
        (None, None) => "a panic without a message".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_loading_one_file_is_that_files_error_and_the_others_load() {
        let files: Vec<PathBuf> = ["a.wasm", "boom.wasm", "c.wasm", "d.wasm"].map(PathBuf::from).to_vec();
        let outcomes = load_all(
            &files,
            |path| match path.to_str() {
                Some("boom.wasm") => panic!("the loader fell over"),
                Some(name) => Ok(name.to_uppercase()),
                None => unreachable!("the names are UTF-8"),
            },
            None,
        );
        assert_eq!(outcomes.len(), 4);
        assert_eq!(outcomes[0].as_ref().ok().map(String::as_str), Some("A.WASM"));
        assert_eq!(
            outcomes[1].as_ref().err().map(ToString::to_string).as_deref(),
            Some(
                "boom.wasm: loading it failed inside the host (the loader fell over); the other components are not affected"
            )
        );
        assert_eq!(outcomes[2].as_ref().ok().map(String::as_str), Some("C.WASM"));
        assert_eq!(outcomes[3].as_ref().ok().map(String::as_str), Some("D.WASM"));
    }

    #[test]
    fn a_panicking_progress_callback_does_not_stop_loading() {
        let files: Vec<PathBuf> = ["a.wasm", "b.wasm"].map(PathBuf::from).to_vec();
        let progress = |done: usize, _: usize, _: &str| assert!(done > 5, "the callback fell over");
        let outcomes = load_all(&files, |path| Ok(path.to_path_buf()), Some(&progress));
        assert!(outcomes.iter().all(Result::is_ok));
    }
}
