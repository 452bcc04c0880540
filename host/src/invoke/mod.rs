//! One call: a fresh instance in a fresh store, the function run under its time
//! limit whether it computes or waits in the host, and the outcome (a value, the
//! tool's own error, or a trap) put in the model's terms.

mod crash;
mod outcome;
mod result;
mod warm;

use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use wasmtime::component::{ComponentExportIndex, Val};

use crate::error::ToolError;
use crate::runtime::Runtime;
use crate::sandbox::{CallObserver, CallState, Limits, Reports, Secret, redact};
use crate::tool::{Returned, WitType};
use outcome::{busy_error, classify_failure, convert_result, explain_denials};
pub(crate) use result::to_json;
pub use warm::PrewarmState;
pub(crate) use warm::{Recipe, WarmPool, Warmer, new_store};

/// Everything needed to run one tool's function once.
pub(crate) struct Invocation<'a> {
    /// The name the model knows the tool by.
    pub(crate) tool: &'a str,
    /// The component's name, for log lines.
    pub(crate) component: &'a Arc<str>,
    /// The component's instances: ready ones, and what to make one from.
    pub(crate) warm: &'a WarmPool,
    /// Where the function is.
    pub(crate) export: &'a ComponentExportIndex,
    /// The function's result type.
    pub(crate) result: Option<&'a WitType>,
    /// The limits it runs under.
    pub(crate) limits: Limits,
    /// Who hears the call's progress and log lines, besides `tracing`.
    pub(crate) observer: Option<&'a Arc<dyn CallObserver>>,
}

/// How running guest code gives way when its time runs out or the executor needs it.
#[derive(Clone, Copy)]
enum Pace {
    /// On a thread of its own (a blocking call): trapped at its time limit.
    Blocking,
    /// On the caller's executor: yields to it at every epoch tick, and is dropped
    /// when its time limit passes.
    Yielding,
}

/// Runs `call` with `args` in a fresh instance, once it has a turn (see
/// `runtime/admission.rs`), and puts the outcome in the model's terms. Blocks the
/// calling thread until the call is done.
pub(crate) fn invoke(runtime: &Runtime, call: &Invocation<'_>, args: &[Val]) -> Result<Returned, ToolError> {
    runtime.block_on(take_turn_and_run(runtime, call, args, Pace::Blocking))
}

/// [`invoke`] for async callers: the call runs on the awaiting task itself (no hand-off
/// to another thread), its guest code yielding to the executor at every epoch tick
/// and its waits in the host awaited, so the executor is never held longer than a tick.
pub(crate) async fn invoke_async(
    runtime: &Runtime,
    call: &Invocation<'_>,
    args: &[Val],
) -> Result<Returned, ToolError> {
    runtime.with_io(take_turn_and_run(runtime, call, args, Pace::Yielding)).await
}

async fn take_turn_and_run(
    runtime: &Runtime,
    call: &Invocation<'_>,
    args: &[Val],
    pace: Pace,
) -> Result<Returned, ToolError> {
    let _turn = runtime.admission().turn().await.map_err(|busy| busy_error(call, busy))?;
    run_in_fresh_store(runtime, call, args, pace).await
}

/// One run of the function in a store of its own, under the call's limits: a ready
/// instance when there is one, else one made now.
async fn run_in_fresh_store(
    runtime: &Runtime,
    call: &Invocation<'_>,
    args: &[Val],
    pace: Pace,
) -> Result<Returned, ToolError> {
    // With other calls running (or running a moment ago) the cores are busy already:
    // this call then makes and drops its own instance instead of handing work to the
    // preparing thread.
    let alone = runtime.admission().alone();
    let (mut store, ready) = match call.warm.take() {
        Some(fresh) => (fresh.store, Some(fresh.instance)),
        None => {
            let store = warm::new_store(call.warm.recipe(), runtime.empty_root())
                .map_err(|error| ToolError::Unavailable { tool: call.tool.to_string(), reason: error.to_string() })?;
            (store, None)
        }
    };
    store.data_mut().reports = Reports::to(call.observer.cloned());
    // The call's time starts now. A call waiting in the host (a sleep, a slow server)
    // is stopped by the timeout around the whole call; running guest code by the epoch,
    // or, yielding at every tick, by that same timeout.
    match pace {
        Pace::Blocking => store.set_epoch_deadline(Runtime::ticks_for(call.limits.time)),
        Pace::Yielding => {
            store.set_epoch_deadline(1);
            store.epoch_deadline_async_yield_and_update(1);
        }
    }
    let pre = &call.warm.recipe().pre;
    let run = async {
        let instance = match ready {
            Some(instance) => instance,
            None => pre.instantiate_async(&mut store).await?,
        };
        let func = instance
            .get_func(&mut store, call.export)
            .ok_or_else(|| wasmtime::format_err!("the export is not a function"))?;
        let mut results = vec![Val::Bool(false); usize::from(call.result.is_some())];
        func.call_async(&mut store, args, &mut results).await?;
        wasmtime::Result::Ok(results.pop())
    };
    let outcome = within(call.limits.time, run).await;
    log_guest_output(call, store.data());
    let denied = store.data().denials.take();
    // The observer ends with the call, not with the store: a face that waits for the
    // call's last notice (MCP sends them before the answer) must not wait for the
    // preparing thread to drop the store.
    store.data_mut().reports = Reports::to(None);
    let outcome = match outcome {
        None => Err(ToolError::TimedOut { tool: call.tool.to_string(), limit: call.limits.time }),
        Some(Ok(value)) => convert_result(call, value, &mut store.data_mut().attached),
        Some(Err(error)) => Err(classify_failure(runtime, call, store.data(), &error)),
    };
    let secrets = store.data().secrets.clone();
    // Dropping the store resets its memory: off this call's path when it came alone.
    call.warm.finish(store, alone);
    explain_denials(call, outcome, denied).map_err(|error| without_secrets(error, &secrets.values))
}

/// `error` with the component's secrets taken out of what the tool wrote in it.
fn without_secrets(error: ToolError, secrets: &[(String, Secret)]) -> ToolError {
    if secrets.is_empty() {
        return error;
    }
    let clean = |text: String| redact(&text, secrets).into_owned();
    match error {
        ToolError::ToolFailed { tool, message } => ToolError::ToolFailed { tool, message: clean(message) },
        ToolError::Denied { tool, denied, message } => ToolError::Denied { tool, denied, message: clean(message) },
        ToolError::Crashed { tool, reason } => ToolError::Crashed { tool, reason: clean(reason) },
        other => other,
    }
}

/// `future`'s output, or `None` when `limit` passes while it waits in the host. The
/// timer is set only once the future waits: most calls finish in their first poll,
/// and registering a timer on every call costs more than the rest of the wrapper.
pub(crate) async fn within<F: Future>(limit: Duration, future: F) -> Option<F::Output> {
    let deadline = tokio::time::Instant::now() + limit;
    let mut future = std::pin::pin!(future);
    let mut timer: Option<std::pin::Pin<Box<tokio::time::Sleep>>> = None;
    std::future::poll_fn(|cx| {
        if let Poll::Ready(output) = future.as_mut().poll(cx) {
            return Poll::Ready(Some(output));
        }
        let timer = timer.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        timer.as_mut().poll(cx).map(|()| None)
    })
    .await
}

/// Passes what the guest printed to `tracing`, noting what the capture bound dropped.
fn log_guest_output(call: &Invocation<'_>, state: &CallState) {
    if !tracing::enabled!(tracing::Level::DEBUG) {
        return;
    }
    for (stream, capture) in [("stdout", &state.stdout), ("stderr", &state.stderr)] {
        let text = capture.text();
        if !text.is_empty() {
            let text = redact(&text, &state.secrets.values);
            tracing::debug!(tool = call.tool, component = %call.component, "guest {stream}: {}", text.trim_end());
        }
        if capture.dropped() > 0 {
            tracing::debug!(tool = call.tool, "guest {stream}: {} more bytes dropped", capture.dropped());
        }
    }
}
