//! The compilers a component's native code comes from. The optimizing one (Cranelift,
//! the runtime's main engine) makes the fastest code, slowly: seconds for an 18 MB
//! Python component. The baseline one (Winch) compiles many times faster into slower
//! code, so a large component missing from the cache is served on its code at once
//! while the optimizing compiler works on it in the background, on an engine of its
//! own that compiles on one thread (the host's `optimize.rs` swaps the result in).

use std::sync::OnceLock;

use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine, Strategy};

use super::{base_config, make_linker};
use crate::sandbox::CallState;

/// Under [`Compiler::Auto`], a component file this large or larger is served on
/// baseline code first; a smaller one is optimized before it serves (well under a
/// second on two cores), which saves compiling it twice.
pub(crate) const BASELINE_FROM_BYTES: usize = 2 << 20;

/// Which compiler makes a component's native code when the compile cache has none.
///
/// Code found in the cache is used whichever this is (optimized code first).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Compiler {
    /// A component of 2 MiB or more (a Python or JavaScript one, which carries its
    /// interpreter) is compiled by the baseline compiler and serves at once; the
    /// optimizing compiler then compiles it in the background, at the lowest priority,
    /// and its code replaces the baseline code (calls already running finish on the
    /// code they started with). Smaller components are optimized before they serve.
    #[default]
    Auto,
    /// Every component is optimized before it serves: the slowest start, and the
    /// fastest calls from the first. For hosts that are started ahead of their calls.
    Optimizing,
    /// Baseline code only, never optimized: the fastest start, slower calls (the
    /// baseline code is kept in the cache for the next start). For short-lived hosts
    /// such as a one-shot command, and for measuring.
    Baseline,
}

impl std::fmt::Display for Compiler {
    /// The name `FromStr` reads: `auto`, `optimizing` or `baseline`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Compiler::Auto => "auto",
            Compiler::Optimizing => "optimizing",
            Compiler::Baseline => "baseline",
        })
    }
}

impl std::str::FromStr for Compiler {
    type Err = UnknownCompiler;

    /// `auto`, `optimizing` or `baseline` (how the command line and the Python and
    /// JavaScript packages name them).
    fn from_str(name: &str) -> Result<Compiler, UnknownCompiler> {
        match name {
            "auto" => Ok(Compiler::Auto),
            "optimizing" => Ok(Compiler::Optimizing),
            "baseline" => Ok(Compiler::Baseline),
            other => Err(UnknownCompiler(other.to_string())),
        }
    }
}

/// A compiler named by none of the names [`Compiler`] is read from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("there is no compiler '{0}': use 'auto', 'optimizing' or 'baseline'")]
pub struct UnknownCompiler(String);

/// The baseline compiler's engine and the linker for the components it compiles.
pub(crate) struct Baseline {
    pub(crate) engine: Engine,
    pub(crate) linker: Linker<CallState>,
}

/// Native code the optimizing compiler made in this process from a component's
/// bytes, in the form `Component::serialize` writes, with the digest of those bytes.
pub(crate) struct Precompiled {
    digest: blake3::Hash,
    code: Vec<u8>,
}

impl Precompiled {
    /// The component, on `engine` (the main one), if `bytes` are what it was compiled
    /// from; otherwise, or if the engine cannot take the code, why not.
    pub(crate) fn load(&self, engine: &Engine, bytes: &[u8]) -> Result<Component, String> {
        if blake3::hash(bytes) != self.digest {
            return Err("its file changed while its optimized code was compiled".into());
        }
        // SAFETY: `deserialize` runs the native code it is given, so that code must be
        // what wasmtime compiled. `code` can only come from `precompile_in_background`
        // below: `Engine::precompile_component` in this process, from bytes whose
        // digest is `digest`, just checked to be these bytes; no one else can have
        // written it. wasmtime itself refuses code compiled with other settings.
        unsafe { Component::deserialize(engine, &self.code) }.map_err(|error| format!("{error:#}"))
    }

    /// The code, in the form `Component::serialize` writes (for the compile cache).
    pub(crate) fn code(&self) -> &[u8] {
        &self.code
    }
}

/// The engines besides the main one, each made when first needed; `None` inside
/// when it cannot be made on this machine.
#[derive(Default)]
pub(crate) struct Compilers {
    baseline: OnceLock<Option<Baseline>>,
    background: OnceLock<Option<Engine>>,
}

impl Compilers {
    /// The baseline compiler, where it can be had.
    pub(crate) fn baseline(&self) -> Option<&Baseline> {
        self.baseline
            .get_or_init(|| {
                make_baseline()
                    .inspect_err(|error| {
                        tracing::info!(
                            "no baseline compiler ({error:#}); large components are optimized before they serve"
                        )
                    })
                    .ok()
            })
            .as_ref()
    }

    /// Advances the baseline engine's epoch, once it exists (its calls' time limits).
    pub(crate) fn increment_epoch(&self) {
        if let Some(Some(baseline)) = self.baseline.get() {
            baseline.engine.increment_epoch();
        }
    }

    /// Compiles `bytes` with the optimizing compiler on the calling thread alone, for
    /// the main engine to load (its settings match the main engine's but for the
    /// threads it compiles on).
    pub(crate) fn precompile_in_background(&self, bytes: &[u8]) -> Result<Precompiled, String> {
        let engine = self
            .background
            .get_or_init(|| {
                let mut config = base_config();
                config.parallel_compilation(false);
                Engine::new(&config).inspect_err(|e| tracing::warn!("no background compiler: {e:#}")).ok()
            })
            .as_ref()
            .ok_or("the background compiler could not be set up")?;
        let code = engine.precompile_component(bytes).map_err(|error| format!("{error:#}"))?;
        Ok(Precompiled { digest: blake3::hash(bytes), code })
    }
}

/// An engine compiling with Winch, allocating instances on demand (its code serves
/// only until the optimized code replaces it, so no slots are reserved for it).
fn make_baseline() -> wasmtime::Result<Baseline> {
    let mut config: Config = base_config();
    config.strategy(Strategy::Winch);
    let engine = Engine::new(&config)?;
    let linker = make_linker(&engine)?;
    Ok(Baseline { engine, linker })
}
