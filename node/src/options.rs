//! The options object of `loadHost` (the JavaScript `Host.load`), made into a
//! `HostBuilder`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use napi_derive::napi;
use toolhost::{CallObserver, HostBuilder};

use crate::approval::{self, ApprovalOptions};
use crate::outcome::{Failure, failure};

/// How a host loads and runs its tools; anything left out keeps the library's default.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct HostOptions {
    /// Where compiled components are cached (default `~/.cache/toolhost`).
    pub cache_dir: Option<String>,
    /// `false`: compile every component at every load, caching nothing.
    pub cache: Option<bool>,
    /// Watch the plugin folders and load changes while the host serves.
    pub watch: Option<bool>,
    /// Each call's limits.
    pub limits: Option<LimitOptions>,
    /// How many calls run at once, and how many wait.
    pub capacity: Option<CapacityOptions>,
    /// Which compiler makes the code of a component not in the cache: "auto"
    /// (default), "optimizing" or "baseline".
    pub compiler: Option<String>,
    /// Which tools ask a person before each call, and how.
    pub approval: Option<ApprovalOptions>,
}

/// Each call's limits (default 10 s, 256 MiB, 64 KiB of output, 1 MiB of result).
#[napi(object)]
pub struct LimitOptions {
    /// Wall-clock time a call may take, in milliseconds.
    pub time_ms: Option<u32>,
    /// Memory one call's instance may grow to, in MiB.
    pub memory_mb: Option<u32>,
    /// Stdout and stderr kept per call, in KiB.
    pub output_kb: Option<u32>,
    /// The largest result, as JSON text, in KiB.
    pub result_kb: Option<u32>,
}

/// Calls at once (default four per core, at least four), waiting (1,024) and how
/// long each may wait (30 s).
#[napi(object)]
pub struct CapacityOptions {
    /// Calls that run at the same time.
    pub max_concurrent_calls: Option<u32>,
    /// Calls that may wait for a turn; one more is refused as busy at once.
    pub max_queued_calls: Option<u32>,
    /// How long a call may wait for a turn, in milliseconds.
    pub queue_timeout_ms: Option<u32>,
}

/// A builder over `plugins` (folders and `.wasm` files) with `options`, and the
/// observer its calls ask approvals through (when `approval` is set).
pub(crate) fn builder(
    plugins: Vec<String>,
    options: HostOptions,
) -> Result<(HostBuilder, Option<Arc<dyn CallObserver>>), Failure> {
    let mut builder = toolhost::Host::builder().watch(options.watch.unwrap_or(false));
    if let Some(name) = &options.compiler {
        builder = builder
            .compiler(name.parse().map_err(|e: toolhost::UnknownCompiler| failure("TypeError", &e.to_string()))?);
    }
    for path in plugins.into_iter().map(PathBuf::from) {
        builder = if path.is_file() { builder.component_file(path) } else { builder.plugin_dir(path) };
    }
    builder = match (options.cache.unwrap_or(true), options.cache_dir) {
        (false, Some(_)) => return Err(failure("TypeError", "cache: false and a cacheDir contradict each other")),
        (false, None) => builder.no_cache(),
        (true, Some(dir)) => builder.cache_dir(dir),
        (true, None) => builder,
    };
    if let Some(limits) = options.limits {
        builder = builder.limits(self::limits(&limits)?);
    }
    if let Some(capacity) = options.capacity {
        builder = builder.capacity(self::capacity(&capacity)?);
    }
    let mut observer = None;
    if let Some(options) = options.approval {
        let (approval, asker) = approval::approval(options);
        builder = builder.approval(approval);
        observer = Some(asker);
    }
    Ok((builder, observer))
}

fn limits(options: &LimitOptions) -> Result<toolhost::Limits, Failure> {
    let mut limits = toolhost::Limits::default();
    if let Some(ms) = options.time_ms {
        limits.time = Duration::from_millis(positive(ms, "timeMs")?.into());
    }
    if let Some(mb) = options.memory_mb {
        limits.memory_bytes = u64::from(positive(mb, "memoryMb")?) << 20;
    }
    if let Some(kb) = options.output_kb {
        limits.output_bytes = (kb as usize) << 10;
    }
    if let Some(kb) = options.result_kb {
        limits.result_bytes = (positive(kb, "resultKb")? as usize) << 10;
    }
    Ok(limits)
}

fn capacity(options: &CapacityOptions) -> Result<toolhost::Capacity, Failure> {
    let mut capacity = toolhost::Capacity::default();
    if let Some(calls) = options.max_concurrent_calls {
        capacity.max_concurrent_calls = positive(calls, "maxConcurrentCalls")? as usize;
    }
    if let Some(calls) = options.max_queued_calls {
        capacity.max_queued_calls = calls as usize;
    }
    if let Some(ms) = options.queue_timeout_ms {
        capacity.queue_timeout = Duration::from_millis(ms.into());
    }
    Ok(capacity)
}

fn positive(value: u32, name: &str) -> Result<u32, Failure> {
    if value == 0 {
        return Err(failure("RangeError", &format!("{name} must be at least 1")));
    }
    Ok(value)
}
