//! One call: a fresh instance in a fresh store, the function run under its limits,
//! and the outcome (a value, the tool's own error, or a trap) put in the model's terms.

use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use serde_json::Value;
use wasmtime::component::{ComponentExportIndex, InstancePre, Val};
use wasmtime::{Store, Trap};

use crate::bind::{json_surely_longer_than, to_json};
use crate::error::ToolError;
use crate::runtime::Runtime;
use crate::refusals::Refusal;
use crate::sandbox::{CallState, Grants, Limits};
use crate::types::WitType;

/// Everything needed to run one tool's function.
pub struct Target<'a> {
    /// The name the model knows the tool by.
    pub tool: &'a str,
    /// The component's name, for log lines.
    pub component: &'a Arc<str>,
    /// The pre-linked component.
    pub pre: &'a InstancePre<CallState>,
    /// Where the function is.
    pub export: &'a ComponentExportIndex,
    /// The function's result type.
    pub result: Option<&'a WitType>,
    /// What the component is granted.
    pub grants: &'a Grants,
    /// The limits it runs under.
    pub limits: &'a Limits,
}

/// Runs `target` with `args` in a fresh instance and converts the outcome.
pub fn invoke(runtime: &Runtime, target: &Target<'_>, args: &[Val]) -> Result<Value, ToolError> {
    let state = CallState::new(target.component.clone(), target.grants, target.limits, runtime.empty_root())
        .map_err(|reason| ToolError::Unavailable { tool: target.tool.to_string(), reason })?;
    let mut store = Store::new(runtime.engine(), state);
    store.limiter(|state| state);
    // Running guest code is stopped by the epoch; a call waiting in the host (a sleep,
    // a slow server) by the timeout around the whole call.
    store.set_epoch_deadline(Runtime::ticks_for(target.limits.time));
    let run = async {
        let instance = target.pre.instantiate_async(&mut store).await?;
        let func = instance
            .get_func(&mut store, target.export)
            .ok_or_else(|| wasmtime::format_err!("the export is not a function"))?;
        let mut results = vec![Val::Bool(false); usize::from(target.result.is_some())];
        func.call_async(&mut store, args, &mut results).await?;
        wasmtime::Result::Ok(results.pop())
    };
    let outcome = runtime.block_on(within(target.limits.time, run));
    log_guest_output(target, store.data());
    let denied = store.data().denials.take();
    let outcome = match outcome {
        None => Err(ToolError::TimedOut { tool: target.tool.to_string(), limit: target.limits.time }),
        Some(Ok(value)) => convert_result(target, value),
        Some(Err(error)) => Err(classify_failure(target, store.data(), &error)),
    };
    explain_denials(target, outcome, denied)
}

/// `future`'s output, or `None` when `limit` passes while it waits in the host. The
/// timer is set only once the future waits: most calls finish in their first poll,
/// and registering a timer on every call costs more than the rest of the wrapper.
async fn within<F: Future>(limit: Duration, future: F) -> Option<F::Output> {
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

/// When the sandbox refused something and the call then failed, says so: the guest's
/// own account ("Non-recoverable error", "Permission denied") hides the reason. A crash
/// is put down to a refused network use only, not to a refused file (see [`Refusal`]).
fn explain_denials(
    target: &Target<'_>,
    outcome: Result<Value, ToolError>,
    refused: Vec<Refusal>,
) -> Result<Value, ToolError> {
    let explains = |refusal: &Refusal| match &outcome {
        Err(ToolError::ToolFailed { .. }) => true,
        Err(ToolError::Crashed { .. }) => !refusal.file,
        _ => false,
    };
    let (relevant, other): (Vec<Refusal>, Vec<Refusal>) = refused.into_iter().partition(explains);
    if !other.is_empty() {
        tracing::debug!(tool = target.tool, "the sandbox also refused {other:?}");
    }
    let denied: Vec<String> = relevant.into_iter().map(|r| r.what).collect();
    match outcome {
        Err(error) if !denied.is_empty() => {
            let message = match error {
                ToolError::ToolFailed { message, .. } => message,
                crash => crash.to_string(),
            };
            Err(ToolError::Denied { tool: target.tool.to_string(), denied, message })
        }
        outcome => outcome,
    }
}

/// Passes what the guest printed to `tracing`, noting what the capture bound dropped.
fn log_guest_output(target: &Target<'_>, state: &CallState) {
    if !tracing::enabled!(tracing::Level::DEBUG) {
        return;
    }
    for (stream, capture) in [("stdout", &state.stdout), ("stderr", &state.stderr)] {
        let text = capture.text();
        if !text.is_empty() {
            tracing::debug!(tool = target.tool, component = %target.component, "guest {stream}: {}", text.trim_end());
        }
        if capture.dropped() > 0 {
            tracing::debug!(tool = target.tool, "guest {stream}: {} more bytes dropped", capture.dropped());
        }
    }
}

/// Turns a returned value into JSON; a top-level `result::err` becomes [`ToolError::ToolFailed`].
fn convert_result(target: &Target<'_>, value: Option<Val>) -> Result<Value, ToolError> {
    let too_large = || ToolError::ResultTooLarge {
        tool: target.tool.to_string(),
        limit_bytes: target.limits.result_bytes as u64,
    };
    let value = match (target.result, value) {
        (Some(WitType::Result { .. }), Some(Val::Result(outcome))) => match outcome {
            Ok(ok) => ok.map(|ok| *ok),
            Err(err) => {
                let message = match err.as_deref() {
                    Some(Val::String(text)) => text.clone(),
                    Some(other) => to_json(other).to_string(),
                    None => format!("Tool '{}' failed without saying why.", target.tool),
                };
                return Err(ToolError::ToolFailed { tool: target.tool.to_string(), message });
            }
        },
        (_, value) => value,
    };
    let Some(value) = value else { return Ok(Value::Null) };
    if json_surely_longer_than(&value, target.limits.result_bytes) {
        return Err(too_large());
    }
    let json = to_json(&value);
    drop(value);
    if json_size(&json) > target.limits.result_bytes {
        return Err(too_large());
    }
    Ok(json)
}

/// The length of a value's JSON text, counted without building the text.
fn json_size(value: &Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    serde_json::to_writer(&mut counter, value).map_or(usize::MAX, |()| counter.0)
}

/// Puts a failed instantiation or call in the model's terms; wasmtime's own account
/// goes to `tracing`.
fn classify_failure(target: &Target<'_>, state: &CallState, error: &wasmtime::Error) -> ToolError {
    let tool = target.tool.to_string();
    tracing::debug!(tool = %tool, component = %target.component, "call failed: {error:?}");
    if state.memory_exceeded {
        return ToolError::OutOfMemory { tool, limit_bytes: target.limits.memory_bytes };
    }
    if hostcall_fuel_exhausted(error) {
        // With no wasm frames in the error, it came from lifting the returned value:
        // wasmtime stops copying a result into the host past its hostcall fuel
        // (128 MiB), long before a result that size could fit the result limit.
        if error.downcast_ref::<wasmtime::WasmBacktrace>().is_none() {
            return ToolError::ResultTooLarge { tool, limit_bytes: target.limits.result_bytes as u64 };
        }
        let reason = "it passed the host more data in one call than the host accepts (128 MiB)".to_string();
        return ToolError::Crashed { tool, reason };
    }
    let Some(trap) = error.downcast_ref::<Trap>() else {
        return ToolError::Unavailable { tool, reason: format!("{error:#}") };
    };
    let reason = match trap {
        Trap::Interrupt => {
            return ToolError::TimedOut { tool, limit: target.limits.time };
        }
        Trap::StackOverflow => "it overflowed its call stack (endless recursion?)".to_string(),
        Trap::UnreachableCodeReached => crash_reason(&state.stderr.text())
            .unwrap_or_else(|| "it aborted without a message".to_string()),
        Trap::MemoryOutOfBounds => "it accessed memory out of bounds".to_string(),
        Trap::IntegerDivisionByZero => "it divided an integer by zero".to_string(),
        Trap::IntegerOverflow => "an integer operation overflowed".to_string(),
        other => format!("it hit a fault ({other})"),
    };
    ToolError::Crashed { tool, reason }
}

/// Whether wasmtime refused to copy more guest data into the host (its "hostcall
/// fuel", which bounds the host memory one call's data may take). wasmtime keeps the
/// error type private, so it is known by its message; `tests/hostile.rs` fails if
/// a new wasmtime words it differently.
fn hostcall_fuel_exhausted(error: &wasmtime::Error) -> bool {
    error.chain().any(|cause| cause.to_string().contains("fuel allocated for hostcalls has been exhausted"))
}

/// How a guest that trapped explained itself on stderr, as a reason: a Python
/// exception, a JavaScript error or a Rust panic, each in the form its toolchain prints.
pub fn crash_reason(stderr: &str) -> Option<String> {
    python_exception(stderr)
        .map(|e| format!("it raised an uncaught exception: {e}"))
        .or_else(|| javascript_error(stderr).map(|e| format!("it threw an uncaught error: {e}")))
        .or_else(|| rust_panic(stderr).map(|e| format!("it panicked: {e}")))
}

/// `Traceback (most recent call last):` … `ValueError: message` (componentize-py).
fn python_exception(stderr: &str) -> Option<String> {
    let start = stderr.rfind("Traceback (most recent call last):")?;
    let mut lines = stderr[start..].lines().skip(1);
    let exception = lines.find(|line| !line.starts_with(char::is_whitespace))?;
    Some(exception.trim().to_string()).filter(|e| !e.is_empty())
}

/// `message`, then `Stack:` and indented frames (componentize-js / StarlingMonkey).
fn javascript_error(stderr: &str) -> Option<String> {
    let end = stderr.rfind("Stack:\n")?;
    let before = stderr[..end].trim_end();
    let paragraph = before.rsplit("\n\n").next()?.trim();
    (!paragraph.is_empty()).then(|| paragraph.to_string())
}

/// `thread '…' panicked at src/lib.rs:1:2:\n<message>\nnote: …` (Rust).
fn rust_panic(stderr: &str) -> Option<String> {
    let start = stderr.rfind("panicked at ")?;
    let after = &stderr[start..];
    let (_, rest) = after.split_once(":\n")?;
    let message: Vec<&str> = rest.lines().take_while(|line| !line.starts_with("note: ")).collect();
    let message = message.join("\n").trim().to_string();
    (!message.is_empty()).then_some(message)
}

#[cfg(test)]
mod tests {
    use super::crash_reason;

    #[test]
    fn a_rust_panic_message_is_read_from_stderr() {
        let stderr = "thread '<unnamed>' panicked at src/lib.rs:12:9:\nthe disk is on fire\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        assert_eq!(crash_reason(stderr).as_deref(), Some("it panicked: the disk is on fire"));
        assert_eq!(crash_reason("just some output"), None);
    }

    #[test]
    fn a_python_exception_wins_over_the_runtime_panic_that_follows_it() {
        let stderr = "Traceback (most recent call last):\n  File \"/0/app.py\", line 55, in ratio\nZeroDivisionError: float division by zero\n\nthread '<unnamed>' (1) panicked at runtime/src/lib.rs:1293:29:\nPython function threw an unexpected exception\nnote: run with `RUST_BACKTRACE=1`\n";
        assert_eq!(
            crash_reason(stderr).as_deref(),
            Some("it raised an uncaught exception: ZeroDivisionError: float division by zero")
        );
    }

    #[test]
    fn a_javascript_error_is_the_text_before_its_stack() {
        let stderr = "malformed URI sequence\nStack:\n  decode@urls.js:54:10\n\nRedirecting call to abort() to mozalloc_abort\n";
        assert_eq!(crash_reason(stderr).as_deref(), Some("it threw an uncaught error: malformed URI sequence"));
    }
}
