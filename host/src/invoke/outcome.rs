//! A call's outcome in the model's terms: a returned value as JSON with the content
//! blocks the call added (within the result size limit), a `result::err` as the
//! tool's own message, a trap as a crash, a time or memory limit by name, and a
//! failure after a sandbox denial as that denial.

use serde_json::Value;
use wasmtime::Trap;
use wasmtime::component::Val;

use super::Invocation;
use super::crash::crash_reason;
use super::result::{json_surely_longer_than, to_json};
use crate::error::ToolError;
use crate::runtime::{Busy, Runtime};
use crate::sandbox::{Attached, CallState, Denial};
use crate::tool::{Returned, WitType, json_len};

/// When the sandbox denied something and the call then failed, says so: the guest's
/// own account ("Non-recoverable error", "Permission denied") hides the reason. A crash
/// is put down to a denied network use only, not to a denied file (see [`Denial`]).
pub(super) fn explain_denials(
    call: &Invocation<'_>,
    outcome: Result<Returned, ToolError>,
    denied: Vec<Denial>,
) -> Result<Returned, ToolError> {
    let explains = |denial: &Denial| match &outcome {
        Err(ToolError::ToolFailed { .. }) => true,
        Err(ToolError::Crashed { .. }) => !denial.file,
        _ => false,
    };
    let (relevant, other): (Vec<Denial>, Vec<Denial>) = denied.into_iter().partition(explains);
    if !other.is_empty() {
        tracing::debug!(tool = call.tool, "the sandbox also denied {other:?}");
    }
    let denied: Vec<String> = relevant.into_iter().map(|denial| denial.what).collect();
    match outcome {
        Err(error) if !denied.is_empty() => {
            let message = match error {
                ToolError::ToolFailed { message, .. } => message,
                crash => crash.to_string(),
            };
            Err(ToolError::Denied { tool: call.tool.to_string(), denied, message })
        }
        outcome => outcome,
    }
}

/// Turns a returned value into JSON beside the content blocks the call added, both
/// within the result limit; a top-level `result::err` becomes [`ToolError::ToolFailed`].
pub(super) fn convert_result(
    call: &Invocation<'_>,
    value: Option<Val>,
    attached: &mut Attached,
) -> Result<Returned, ToolError> {
    let too_large =
        || ToolError::ResultTooLarge { tool: call.tool.to_string(), limit_bytes: call.limits.result_bytes as u64 };
    if attached.over_limit() {
        return Err(too_large());
    }
    let left = call.limits.result_bytes.saturating_sub(attached.bytes());
    let value = match (call.result, value) {
        (Some(WitType::Result { .. }), Some(Val::Result(outcome))) => match outcome {
            Ok(ok) => ok.map(|ok| *ok),
            Err(err) => {
                let message = match err.as_deref() {
                    Some(Val::String(text)) => text.clone(),
                    Some(other) => to_json(other).to_string(),
                    None => format!("Tool '{}' failed without saying why.", call.tool),
                };
                return Err(ToolError::ToolFailed { tool: call.tool.to_string(), message });
            }
        },
        (_, value) => value,
    };
    let Some(value) = value else { return Ok(Returned { value: Value::Null, content: attached.take() }) };
    if json_surely_longer_than(&value, left) {
        return Err(too_large());
    }
    let json = to_json(&value);
    drop(value);
    if json_len(&json) > left {
        return Err(too_large());
    }
    Ok(Returned { value: json, content: attached.take() })
}

/// Puts a failed instantiation or call in the model's terms; wasmtime's own account
/// goes to `tracing`.
pub(super) fn classify_failure(
    runtime: &Runtime,
    call: &Invocation<'_>,
    state: &CallState,
    error: &wasmtime::Error,
) -> ToolError {
    let tool = call.tool.to_string();
    tracing::debug!(tool = %tool, component = %call.component, "call failed: {error:?}");
    if state.memory_exceeded {
        return ToolError::OutOfMemory { tool, limit_bytes: call.limits.memory_bytes };
    }
    if error.downcast_ref::<wasmtime::PoolConcurrencyLimitError>().is_some() {
        // The pool ran out of one of its kinds of slot (memories, tables, stacks) before
        // the admission queue's limit: the same for the model as waiting too long.
        return busy_error(call, runtime.admission().busy(0, std::time::Instant::now()));
    }
    if hostcall_fuel_exhausted(error) {
        // With no wasm frames in the error, it came from lifting the returned value:
        // wasmtime stops copying a result into the host past its hostcall fuel
        // (128 MiB), long before a result that size could fit the result limit.
        if error.downcast_ref::<wasmtime::WasmBacktrace>().is_none() {
            return ToolError::ResultTooLarge { tool, limit_bytes: call.limits.result_bytes as u64 };
        }
        let reason = "it passed the host more data in one call than the host accepts (128 MiB)".to_string();
        return ToolError::Crashed { tool, reason };
    }
    let Some(trap) = error.downcast_ref::<Trap>() else {
        return ToolError::Unavailable { tool, reason: format!("{error:#}") };
    };
    let reason = match trap {
        Trap::Interrupt => {
            return ToolError::TimedOut { tool, limit: call.limits.time };
        }
        Trap::StackOverflow => "it overflowed its call stack (endless recursion?)".to_string(),
        Trap::UnreachableCodeReached => {
            crash_reason(&state.stderr.text()).unwrap_or_else(|| "it aborted without a message".to_string())
        }
        Trap::MemoryOutOfBounds => "it accessed memory out of bounds".to_string(),
        Trap::IntegerDivisionByZero => "it divided an integer by zero".to_string(),
        Trap::IntegerOverflow => "an integer operation overflowed".to_string(),
        other => format!("it hit a fault ({other})"),
    };
    ToolError::Crashed { tool, reason }
}

/// The message for a call that got no turn: the host is busy, not the call wrong.
pub(super) fn busy_error(call: &Invocation<'_>, busy: Busy) -> ToolError {
    ToolError::Busy { tool: call.tool.to_string(), running: busy.running, queued: busy.queued, waited: busy.waited }
}

/// Whether wasmtime refused to copy more guest data into the host (its "hostcall
/// fuel", which bounds the host memory one call's data may take). wasmtime keeps the
/// error type private, so it is known by its message; `tests/all/hostile.rs` fails if
/// a new wasmtime words it differently.
fn hostcall_fuel_exhausted(error: &wasmtime::Error) -> bool {
    error.chain().any(|cause| cause.to_string().contains("fuel allocated for hostcalls has been exhausted"))
}
