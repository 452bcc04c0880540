//! Rate limits per caller (token buckets): calls of each tool, where a refused call
//! is a tool result the model reads (which limit, and when to retry), and, over HTTP,
//! requests, where a refused request gets 429 with `Retry-After`.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::access::Caller;
use crate::error::ToolError;

/// Buckets kept before full ones (callers idle long enough to be back at their
/// limit) are dropped.
const MAX_BUCKETS: usize = 10_000;

/// The limits, and each caller's buckets.
#[derive(Debug, Default)]
pub struct RateLimits {
    /// Calls a minute of any one tool, per caller.
    calls_per_minute: Option<u32>,
    /// Calls a minute of these tools (by registered name), per caller, instead.
    tool_calls_per_minute: HashMap<String, u32>,
    /// HTTP requests a minute, per caller.
    requests_per_minute: Option<u32>,
    calls: Buckets,
    requests: Buckets,
}

impl RateLimits {
    /// No limits yet.
    pub fn new() -> RateLimits {
        RateLimits::default()
    }

    /// Each caller may call any one tool `per_minute` times a minute (in bursts up to that).
    #[must_use]
    pub fn calls_per_minute(mut self, per_minute: u32) -> RateLimits {
        self.calls_per_minute = Some(per_minute);
        self
    }

    /// Each caller may call the tool registered as `tool` `per_minute` times a minute.
    #[must_use]
    pub fn tool_calls_per_minute(mut self, tool: &str, per_minute: u32) -> RateLimits {
        self.tool_calls_per_minute.insert(tool.to_string(), per_minute);
        self
    }

    /// Each caller may send `per_minute` MCP requests a minute over HTTP.
    #[must_use]
    pub fn requests_per_minute(mut self, per_minute: u32) -> RateLimits {
        self.requests_per_minute = Some(per_minute);
        self
    }

    /// Takes one call of `tool` (its registered name) for `caller`, or says why not
    /// (the MCP server asks before each call).
    pub fn take_call(&self, caller: &Caller, tool: &str) -> Result<(), ToolError> {
        let Some(limit) = self.tool_calls_per_minute.get(tool).copied().or(self.calls_per_minute) else {
            return Ok(());
        };
        self.calls
            .take((caller.name().to_string(), tool.to_string()), limit)
            .map_err(|retry_after| ToolError::RateLimited { tool: tool.to_string(), per_minute: limit, retry_after })
    }

    /// Takes one request for `caller`; `Err` is how long until one is allowed (the
    /// HTTP server asks before each MCP request).
    pub fn take_request(&self, caller: &Caller) -> Result<(), Duration> {
        match self.requests_per_minute {
            Some(limit) => self.requests.take((caller.name().to_string(), String::new()), limit),
            None => Ok(()),
        }
    }
}

/// Token buckets by (caller, tool).
#[derive(Debug, Default)]
struct Buckets(Mutex<HashMap<(String, String), Bucket>>);

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    updated: Instant,
}

impl Buckets {
    /// One token from `key`'s bucket of `per_minute` (full at first), or the wait
    /// until there is one.
    fn take(&self, key: (String, String), per_minute: u32) -> Result<(), Duration> {
        let (capacity, per_second) = (f64::from(per_minute), f64::from(per_minute) / 60.0);
        let now = Instant::now();
        let mut buckets = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if buckets.len() >= MAX_BUCKETS {
            buckets.retain(|_, bucket| bucket.tokens + per_second * (now - bucket.updated).as_secs_f64() < capacity);
        }
        let bucket = buckets.entry(key).or_insert(Bucket { tokens: capacity, updated: now });
        bucket.tokens = (bucket.tokens + per_second * (now - bucket.updated).as_secs_f64()).min(capacity);
        bucket.updated = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        if per_second <= 0.0 {
            return Err(Duration::from_secs(60));
        }
        Err(Duration::from_secs_f64((1.0 - bucket.tokens) / per_second))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_allows_its_burst_then_says_how_long_to_wait() {
        let limits = RateLimits::new().calls_per_minute(3).tool_calls_per_minute("slow", 1);
        let (alice, bob) = (Caller::new("alice"), Caller::new("bob"));
        for _ in 0..3 {
            assert!(limits.take_call(&alice, "evaluate").is_ok());
        }
        let Err(ToolError::RateLimited { per_minute: 3, retry_after, .. }) = limits.take_call(&alice, "evaluate")
        else {
            panic!("the fourth call is refused");
        };
        // One token comes back every 20 s.
        assert!(retry_after > Duration::from_secs(19) && retry_after <= Duration::from_secs(20), "{retry_after:?}");
        assert!(limits.take_call(&bob, "evaluate").is_ok(), "each caller has their own");
        assert!(limits.take_call(&alice, "gcd").is_ok(), "and each tool");
        assert!(limits.take_call(&alice, "slow").is_ok());
        assert!(limits.take_call(&alice, "slow").is_err(), "a tool's own limit");
        assert!(limits.take_request(&alice).is_ok(), "no request limit set");
        let refused = RateLimits::new().calls_per_minute(0).take_call(&alice, "evaluate").expect_err("none allowed");
        assert!(refused.to_string().starts_with("Tool 'evaluate' is rate-limited for you: 0 calls a minute"));
    }
}
