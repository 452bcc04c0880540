//! The recent calls, in memory, for the console (`http/console`): the last calls as
//! the audit log sees them (who, which tool, how it ended, what was repaired, the
//! message), and calls and latency per ten seconds over the last ten minutes. Both
//! are bounded; nothing is written anywhere.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::Caller;
use crate::host::CallOutcome;
use crate::mutex::lock;

/// Calls kept.
const KEPT: usize = 1_000;
/// How long each bucket of the charts spans, and how many are kept.
pub(crate) const BUCKET: Duration = Duration::from_secs(10);
pub(crate) const BUCKETS: usize = 60;

/// The recent calls a console shows, and their counts over time: made by the HTTP
/// server that serves the console, or given to it and to an [`super::McpServer`]
/// serving elsewhere.
pub struct RecentCalls {
    started: Instant,
    inner: Mutex<Inner>,
}

struct Inner {
    calls: VecDeque<CallRecord>,
    /// Per bucket, oldest first; the last is the current one.
    buckets: VecDeque<Bucket>,
    /// The number of the last bucket (since `started`).
    last: u64,
    /// A number for each call, in order.
    numbered: u64,
}

/// One call, as the console shows it.
#[derive(Clone)]
pub(crate) struct CallRecord {
    pub(crate) number: u64,
    /// When it ended (UTC, RFC 3339, to the second).
    pub(crate) time: String,
    pub(crate) caller: String,
    /// The name it was called by.
    pub(crate) name: String,
    /// The tool that ran, when the name resolved.
    pub(crate) tool: Option<String>,
    /// `ok`, or the error's kind.
    pub(crate) outcome: &'static str,
    /// What was repaired, in words.
    pub(crate) repairs: Vec<String>,
    /// The message the model got, when it failed.
    pub(crate) message: Option<String>,
    pub(crate) took: Duration,
}

/// Calls that ended in one bucket of time.
#[derive(Clone, Copy, Default)]
pub(crate) struct Bucket {
    pub(crate) calls: u32,
    pub(crate) failed: u32,
    pub(crate) total: Duration,
    pub(crate) slowest: Duration,
}

impl std::fmt::Debug for RecentCalls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecentCalls").field("kept", &lock(&self.inner).calls.len()).finish()
    }
}

impl Default for RecentCalls {
    fn default() -> RecentCalls {
        RecentCalls::new()
    }
}

impl RecentCalls {
    /// None yet.
    pub fn new() -> RecentCalls {
        let inner = Inner { calls: VecDeque::new(), buckets: VecDeque::new(), last: 0, numbered: 0 };
        RecentCalls { started: Instant::now(), inner: Mutex::new(inner) }
    }

    /// Records `caller`'s call of `name` that ended as `outcome` after `took`: made
    /// into its record before the lock is taken, which then only files it.
    pub(crate) fn record(&self, caller: &Caller, name: &str, outcome: &CallOutcome, took: Duration) {
        let mut record = CallRecord {
            number: 0,
            time: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            caller: caller.name().to_string(),
            name: name.to_string(),
            tool: outcome.tool.clone(),
            outcome: outcome.kind(),
            repairs: outcome.repairs.iter().map(ToString::to_string).collect(),
            message: outcome.result.as_ref().err().map(ToString::to_string),
            took,
        };
        let now = self.bucket_now();
        let mut inner = lock(&self.inner);
        inner.advance(now);
        inner.numbered += 1;
        record.number = inner.numbered;
        if inner.calls.len() == KEPT {
            inner.calls.pop_front();
        }
        inner.calls.push_back(record);
        if let Some(bucket) = inner.buckets.back_mut() {
            bucket.calls += 1;
            bucket.failed += u32::from(outcome.result.is_err());
            bucket.total += took;
            bucket.slowest = bucket.slowest.max(took);
        }
    }

    /// The calls kept, newest first.
    pub(crate) fn calls(&self) -> Vec<CallRecord> {
        lock(&self.inner).calls.iter().rev().cloned().collect()
    }

    /// The last [`BUCKETS`] buckets, oldest first, the current one last (those
    /// before the server started empty).
    pub(crate) fn buckets(&self) -> Vec<Bucket> {
        let now = self.bucket_now();
        let mut inner = lock(&self.inner);
        inner.advance(now);
        let before = BUCKETS - inner.buckets.len();
        std::iter::repeat_n(Bucket::default(), before).chain(inner.buckets.iter().copied()).collect()
    }

    fn bucket_now(&self) -> u64 {
        (self.started.elapsed().as_secs() / BUCKET.as_secs()).saturating_add(1)
    }
}

impl Inner {
    /// Empty buckets up to bucket `now`, the oldest dropped past [`BUCKETS`].
    fn advance(&mut self, now: u64) {
        let missing = usize::try_from(now.saturating_sub(self.last)).unwrap_or(usize::MAX).min(BUCKETS);
        for _ in 0..missing {
            if self.buckets.len() == BUCKETS {
                self.buckets.pop_front();
            }
            self.buckets.push_back(Bucket::default());
        }
        self.last = self.last.max(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ToolError;

    fn outcome(result: Result<serde_json::Value, ToolError>) -> CallOutcome {
        CallOutcome {
            tool: Some("gcd".into()),
            repaired_from: None,
            repairs: Vec::new(),
            result,
            content: Vec::new(),
            approved: false,
        }
    }

    #[test]
    fn the_newest_calls_are_kept_and_counted() {
        let recent = RecentCalls::new();
        let caller = Caller::new("someone");
        for _ in 0..KEPT + 5 {
            recent.record(&caller, "gcd", &outcome(Ok(serde_json::json!(6))), Duration::from_millis(2));
        }
        let failed = Err(ToolError::UnknownTool {
            name: "nope".into(),
            suggestion: None,
            available_tools: std::sync::Arc::from(vec!["gcd".to_string()]),
            nearest_tools: Vec::new(),
        });
        recent.record(&caller, "nope", &outcome(failed), Duration::from_millis(1));
        let calls = recent.calls();
        assert_eq!(calls.len(), KEPT);
        assert_eq!((calls[0].number, calls[0].outcome), (KEPT as u64 + 6, "unknown_tool"));
        assert!(calls[0].message.as_deref().is_some_and(|message| message.contains("nope")));
        let buckets = recent.buckets();
        assert_eq!(buckets.len(), BUCKETS);
        let current = buckets.last().expect("a bucket");
        assert_eq!((current.calls, current.failed), (KEPT as u32 + 6, 1));
        assert_eq!(current.slowest, Duration::from_millis(2));
    }
}
