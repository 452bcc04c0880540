//! What a running call tells and asks its caller besides its result: progress and
//! log lines (the `toolhost:tool` imports `progress` and `log`), questions for the
//! person and requests to the caller's model (`elicit`, `sample`), passed to the
//! [`CallObserver`] the call was started with, within bounds per call so that a
//! tool cannot flood its caller.

use std::sync::Arc;

use futures::future::{BoxFuture, FutureExt as _, ready};
use serde_json::Value;

use super::asks::{Elicitation, ElicitationAnswer, Sampling};

/// Log lines of one call passed on to its observer, at most.
pub(crate) const MAX_LOG_LINES: u32 = 100;
/// Bytes of log messages of one call passed on to its observer, at most.
pub(crate) const MAX_LOG_BYTES: usize = 64 << 10;
/// Progress reports of one call passed on to its observer, at most.
pub(crate) const MAX_PROGRESS_REPORTS: u32 = 1000;
/// Questions, and requests to the caller's model, of one call passed on, at most (each).
pub(crate) const MAX_ASKS: u32 = 10;
/// Why a caller that did not say otherwise has no model to ask.
const NO_MODEL: &str = "the caller has no model to ask (only an MCP client with sampling has)";

/// How important a tool's log line is (the `toolhost:tool/log` levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Step-by-step detail.
    Trace,
    /// Detail for finding out why a call did what it did.
    Debug,
    /// What a call is doing.
    Info,
    /// Something unexpected that the call survives.
    Warn,
    /// Something that made the call fail.
    Error,
}

impl LogLevel {
    /// The level a WIT `level` case names (`trace` … `error`), or `None`.
    pub(crate) fn from_wit(case: &str) -> Option<LogLevel> {
        Some(match case {
            "trace" => LogLevel::Trace,
            "debug" => LogLevel::Debug,
            "info" => LogLevel::Info,
            "warn" => LogLevel::Warn,
            "error" => LogLevel::Error,
            _ => return None,
        })
    }
}

/// How far a running call has come, as its tool reported it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// How much is done; grows from one report to the next.
    pub done: f64,
    /// How much there is to do, when the tool knows.
    pub total: Option<f64>,
    /// What the tool is doing, in words.
    pub message: Option<String>,
}

/// Hears what a running call reports, for a caller that wants more than the result
/// (see [`Host::dispatch_observed`](crate::Host::dispatch_observed)). Called on the
/// thread that runs the call, between two steps of the tool: an implementation
/// should hand the report on (to a channel, say) rather than wait.
pub trait CallObserver: Send + Sync {
    /// The tool reported progress.
    fn progress(&self, _progress: &Progress) {}

    /// The tool wrote a log line (`component` is the tool's component). Also called,
    /// once, at [`LogLevel::Warn`] when the call's bound on what is passed on is
    /// reached, saying so.
    fn log(&self, _level: LogLevel, _component: &str, _message: &str) {}

    /// The tool asks the person using the agent a question, and waits for the
    /// answer (at most its call's time limit). Unless implemented, declines.
    fn elicit(&self, _question: Elicitation) -> BoxFuture<'static, ElicitationAnswer> {
        ready(ElicitationAnswer::Decline).boxed()
    }

    /// The host asks the person whether `tool` may run with `arguments` (the host's
    /// `Approval`, or the tool's file); `question` says the same in words, with one
    /// yes-or-no field, `approve`. The call runs on `Accept` with `approve: true`.
    /// Unless implemented, asked as a tool's question is ([`CallObserver::elicit`]).
    fn approve(&self, _tool: &str, _arguments: &Value, question: Elicitation) -> BoxFuture<'static, ElicitationAnswer> {
        self.elicit(question)
    }

    /// The tool asks the caller's model to continue a conversation, and waits for
    /// its text, or why there is none. Unless implemented, there is none.
    fn sample(&self, _request: Sampling) -> BoxFuture<'static, Result<String, String>> {
        ready(Err(NO_MODEL.to_string())).boxed()
    }
}

/// One call's reports on their way to its observer, counted against the bounds.
#[derive(Default)]
pub(crate) struct Reports {
    observer: Option<Arc<dyn CallObserver>>,
    log_lines: u32,
    log_bytes: usize,
    progress_reports: u32,
    questions: u32,
    samplings: u32,
}

impl Reports {
    /// Reports to `observer` (none: reports go nowhere).
    pub(crate) fn to(observer: Option<Arc<dyn CallObserver>>) -> Reports {
        Reports { observer, ..Reports::default() }
    }

    /// Passes a log line on while the call is within its bounds.
    pub(crate) fn log(&mut self, level: LogLevel, component: &str, message: &str) {
        let Some(observer) = &self.observer else { return };
        if self.log_lines > MAX_LOG_LINES {
            return;
        }
        self.log_lines += 1;
        self.log_bytes = self.log_bytes.saturating_add(message.len());
        if self.log_lines > MAX_LOG_LINES || self.log_bytes > MAX_LOG_BYTES {
            // Counted past the bound, so that nothing more is passed on.
            self.log_lines = MAX_LOG_LINES + 1;
            let note = format!(
                "toolhost: no more log lines of this call are passed on (at most {MAX_LOG_LINES} lines and {} KiB per call)",
                MAX_LOG_BYTES >> 10
            );
            return observer.log(LogLevel::Warn, component, &note);
        }
        observer.log(level, component, message);
    }

    /// Asks the observer `question` while the call is within its bound; declines
    /// otherwise, and without an observer.
    pub(crate) fn elicit(&mut self, question: Elicitation) -> BoxFuture<'static, ElicitationAnswer> {
        self.questions = self.questions.saturating_add(1);
        match &self.observer {
            Some(observer) if self.questions <= MAX_ASKS => observer.elicit(question),
            _ => ready(ElicitationAnswer::Decline).boxed(),
        }
    }

    /// Passes `request` on to the observer's model while the call is within its bound.
    pub(crate) fn sample(&mut self, request: Sampling) -> BoxFuture<'static, Result<String, String>> {
        self.samplings = self.samplings.saturating_add(1);
        match &self.observer {
            Some(_) if self.samplings > MAX_ASKS => {
                ready(Err(format!("a call may ask the caller's model at most {MAX_ASKS} times"))).boxed()
            }
            Some(observer) => observer.sample(request),
            None => ready(Err(NO_MODEL.to_string())).boxed(),
        }
    }

    /// Passes a progress report on while the call is within its bound.
    pub(crate) fn progress(&mut self, component: &str, progress: &Progress) {
        let Some(observer) = &self.observer else { return };
        self.progress_reports = self.progress_reports.saturating_add(1);
        match self.progress_reports {
            count if count <= MAX_PROGRESS_REPORTS => observer.progress(progress),
            count if count == MAX_PROGRESS_REPORTS + 1 => {
                let note = format!(
                    "toolhost: no more progress reports of this call are passed on (at most {MAX_PROGRESS_REPORTS} per call)"
                );
                observer.log(LogLevel::Warn, component, &note);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[derive(Default)]
    struct Heard(Mutex<Vec<String>>);

    impl CallObserver for Heard {
        fn progress(&self, progress: &Progress) {
            self.0.lock().expect("lock").push(format!("progress {}", progress.done));
        }
        fn log(&self, level: LogLevel, _component: &str, message: &str) {
            self.0.lock().expect("lock").push(format!("{level:?} {message}"));
        }
    }

    fn heard(flood: impl FnOnce(&mut Reports)) -> Vec<String> {
        let observer = Arc::new(Heard::default());
        let mut reports = Reports::to(Some(observer.clone()));
        flood(&mut reports);
        observer.0.lock().expect("lock").clone()
    }

    #[test]
    fn a_flood_of_log_lines_is_cut_at_the_bound_with_one_note() {
        let lines = heard(|reports| (0..1000).for_each(|i| reports.log(LogLevel::Info, "c", &format!("line {i}"))));
        assert_eq!(lines.len(), MAX_LOG_LINES as usize + 1);
        assert_eq!(lines[99], "Info line 99");
        assert!(lines[100].starts_with("Warn toolhost: no more log lines"), "{}", lines[100]);
    }

    #[test]
    fn a_few_huge_log_lines_are_cut_at_the_byte_bound() {
        let big = "x".repeat(40 << 10);
        let lines = heard(|reports| (0..5).for_each(|_| reports.log(LogLevel::Info, "c", &big)));
        assert_eq!(lines.len(), 2, "one line within 64 KiB, then the note");
        assert!(lines[1].contains("64 KiB"), "{}", lines[1]);
    }

    #[test]
    fn a_flood_of_progress_is_cut_at_the_bound_with_one_note() {
        let progress = |done| Progress { done, total: None, message: None };
        let heard = heard(|reports| (0..5000).for_each(|i| reports.progress("c", &progress(f64::from(i)))));
        assert_eq!(heard.len(), MAX_PROGRESS_REPORTS as usize + 1);
        assert!(heard.last().is_some_and(|note| note.starts_with("Warn toolhost: no more progress")));
    }

    #[test]
    fn without_an_observer_nothing_is_counted_or_sent() {
        let mut reports = Reports::to(None);
        (0..10).for_each(|_| reports.log(LogLevel::Error, "c", "x"));
        assert_eq!(reports.log_lines, 0);
    }
}
