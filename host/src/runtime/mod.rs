//! The shared WebAssembly machinery: one engine (pooling allocator where the machine
//! allows it, epoch interruption driven by a background ticker), one linker that
//! offers WASI 0.2, `wasi:http` and the `toolhost:tool` imports, and the thread that
//! drives what calls wait on in the host. Beside them, made when first needed: a
//! baseline engine (Winch) whose code a large component is served on while the
//! optimizing compiler (Cranelift) works, and the engine that optimizing work runs on
//! in the background (`compilers.rs`).
//!
//! This is the one home of platform- and machine-specific settings (allocator sizes,
//! page-reset strategy, stack size, the epoch tick): porting or tuning starts here.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use wasmtime::component::{Component, InstancePre, Linker};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

mod admission;
mod compilers;
mod services;

use admission::POOL_SLOTS;
pub(crate) use admission::PREWARM_SLOTS;
pub(crate) use admission::{Admission, Busy};
pub use admission::{Capacity, Prewarm};
pub(crate) use compilers::{BASELINE_FROM_BYTES, Precompiled};
pub use compilers::{Compiler, UnknownCompiler};

use crate::error::LoadError;
use crate::sandbox::{CallState, EmptyRoot, install_shims};

/// How often the epoch advances; time limits are enforced to this granularity.
pub(crate) const TICK: Duration = Duration::from_millis(5);

/// The engine, the linker and the epoch ticker, shared by every component.
pub(crate) struct Runtime {
    engine: Engine,
    linker: Linker<CallState>,
    /// The baseline compiler's engine and linker, and the background optimizer's
    /// engine, each made when first needed.
    compilers: Arc<compilers::Compilers>,
    /// Drives what calls wait on in the host (timers, sockets, HTTP) on its own
    /// thread, so a call never depends on the caller's async runtime. Always `Some`
    /// until dropped.
    io: Option<tokio::runtime::Runtime>,
    /// The empty folder calls see at `/`; `None` when it could not be made.
    empty_root: Option<Arc<EmptyRoot>>,
    /// The turns calls take, so that no more run at once than the pool holds.
    admission: Admission,
    _ticker: Ticker,
}

impl Runtime {
    /// Sets up the engine and linker.
    pub(crate) fn new(capacity: Capacity) -> Result<Runtime, LoadError> {
        let engine = pooled_engine().or_else(|pool_error| {
            tracing::warn!("pooling allocator unavailable ({pool_error}); instances are allocated on demand");
            Engine::new(&base_config()).map_err(|e| LoadError::Engine(e.to_string()))
        })?;
        let linker = make_linker(&engine).map_err(|e| LoadError::Engine(e.to_string()))?;
        let io = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("toolhost-io")
            .enable_all()
            .build()
            .map_err(|e| LoadError::Engine(format!("cannot start the I/O thread: {e}")))?;
        let empty_root = EmptyRoot::create()
            .inspect_err(|e| tracing::warn!("cannot make the sandbox's empty root folder ({e}); paths outside the granted folders will be reported by the tools alone"))
            .ok()
            .map(Arc::new);
        let compilers = Arc::new(compilers::Compilers::default());
        let ticker = Ticker::start(engine.clone(), compilers.clone());
        let admission = Admission::new(capacity);
        Ok(Runtime { engine, linker, compilers, io: Some(io), empty_root, admission, _ticker: ticker })
    }

    /// Runs `future` to completion on the calling thread, with the host's I/O runtime
    /// as the ambient one. Works from inside another async runtime too (it blocks the
    /// thread; async callers use `Host::call_async`, which moves the call off it).
    pub(crate) fn block_on<F: Future>(&self, future: F) -> F::Output {
        let _context = self.io.as_ref().map(|io| io.enter());
        futures::executor::block_on(future)
    }

    /// `future`, polled with the host's I/O runtime as the ambient one, on whatever
    /// executor awaits it: what a call creates to wait on (timers, sockets, HTTP) is
    /// driven by the host's I/O thread, whichever runtime the caller has.
    pub(crate) async fn with_io<F: Future>(&self, future: F) -> F::Output {
        let mut future = std::pin::pin!(future);
        std::future::poll_fn(|cx| {
            let _context = self.io.as_ref().map(|io| io.enter());
            future.as_mut().poll(cx)
        })
        .await
    }

    /// The I/O runtime's handle, for threads that run guest code outside a call.
    pub(crate) fn io_handle(&self) -> Option<tokio::runtime::Handle> {
        self.io.as_ref().map(|io| io.handle().clone())
    }

    /// The turns calls take.
    pub(crate) fn admission(&self) -> &Admission {
        &self.admission
    }

    /// The empty folder calls see at `/`, when there is one.
    pub(crate) fn empty_root(&self) -> Option<&Arc<EmptyRoot>> {
        self.empty_root.as_ref()
    }

    /// The engine every component is compiled for.
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The baseline compiler's engine, or `None` where it cannot be had (Winch
    /// compiles for x86-64 and AArch64 only).
    pub(crate) fn baseline_engine(&self) -> Option<&Engine> {
        self.compilers.baseline().map(|baseline| &baseline.engine)
    }

    /// The engines besides the main one (for the background optimizer, which must not
    /// keep the runtime alive).
    pub(crate) fn compilers(&self) -> Arc<compilers::Compilers> {
        self.compilers.clone()
    }

    /// Links a component against the host's imports once, for cheap instantiation later
    /// (with the linker of the engine that compiled it). Fails naming the import the
    /// host cannot provide.
    pub(crate) fn prepare(&self, component: &Component) -> Result<InstancePre<CallState>, LinkError> {
        let linker = match self.compilers.baseline() {
            Some(baseline) if Engine::same(component.engine(), &baseline.engine) => &baseline.linker,
            _ => &self.linker,
        };
        linker.instantiate_pre(component).map_err(LinkError)
    }

    /// Epoch ticks that add up to `time` (at least one).
    pub(crate) fn ticks_for(time: Duration) -> u64 {
        (time.as_nanos() / TICK.as_nanos()).max(1) as u64 + 1
    }
}

/// A component that imports something the host does not offer.
#[derive(Debug, thiserror::Error)]
#[error("{0:#}")]
pub(crate) struct LinkError(wasmtime::Error);

/// The settings every engine shares (the compiler and the allocator aside).
fn base_config() -> Config {
    let mut config = Config::new();
    config.epoch_interruption(true);
    // Enough stack for real tools, small enough that endless recursion ends quickly.
    config.max_wasm_stack(1 << 20);
    config
}

/// An engine with the pooling allocator: instance slots are reserved up front, so a
/// fresh instance per call costs little.
fn pooled_engine() -> wasmtime::Result<Engine> {
    let mut pool = PoolingAllocationConfig::default();
    // Calls' slots plus the prepared instances' (which hold no stack until they run).
    let slots = (POOL_SLOTS + PREWARM_SLOTS) as u32;
    pool.total_component_instances(slots)
        .total_core_instances(4 * slots)
        .total_memories(2 * slots)
        .total_tables(2 * slots)
        // A stack per running call, and for the thread that prepares instances.
        .total_stacks(POOL_SLOTS as u32 + 1)
        .max_memory_size(1 << 32)
        // Reset a finished instance's memory by rewriting only the pages it touched
        // (found with PAGEMAP_SCAN where the kernel has it) instead of madvise: no page
        // faults on reuse, and no TLB shootdowns stalling the other threads.
        .linear_memory_keep_resident(8 << 20)
        .table_keep_resident(1 << 20)
        .pagemap_scan(wasmtime::Enabled::Auto);
    let mut config = base_config();
    config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    Engine::new(&config)
}

/// A linker offering the host's imports to components compiled by `engine`.
fn make_linker(engine: &Engine) -> wasmtime::Result<Linker<CallState>> {
    let mut linker = Linker::<CallState>::new(engine);
    // Async bindings, so a call blocked in the host (a sleep, a slow server) can be
    // abandoned when its time is up; the epoch alone stops only running guest code.
    wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
    wasmtime_wasi_http::p2::add_only_http_to_linker_async(&mut linker)?;
    install_shims(&mut linker)?;
    services::add_to_linker(&mut linker)?;
    Ok(linker)
}

impl Drop for Runtime {
    /// Stops the I/O thread without waiting, so a host may be dropped in async code.
    fn drop(&mut self) {
        if let Some(io) = self.io.take() {
            io.shutdown_background();
        }
    }
}

/// Advances the engines' epoch every [`TICK`] until dropped.
struct Ticker {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Ticker {
    fn start(engine: Engine, compilers: Arc<compilers::Compilers>) -> Ticker {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("toolhost-epoch".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(TICK);
                    engine.increment_epoch();
                    compilers.increment_epoch();
                }
            })
            .inspect_err(|e| tracing::error!("cannot start the epoch ticker, time limits will not fire: {e}"))
            .ok();
        Ticker { stop, thread }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
