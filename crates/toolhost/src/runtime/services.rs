//! The `toolhost:tool` imports a tool may use (`wit/toolhost.wit`): `log` (0.1.0 and
//! 0.2.0) and `progress` (0.2.0). Each goes to `tracing` and to the call's
//! [`Reports`](crate::sandbox::Reports), which pass it on to the caller within the
//! call's bounds.

use wasmtime::component::{Linker, Val};

use crate::sandbox::{CallState, LogLevel, Progress};

/// The versions of the package the host serves; a component may import either.
const VERSIONS: [&str; 2] = ["0.1.0", "0.2.0"];

/// Links the host's services under every version that has them.
pub(super) fn add_to_linker(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    for version in VERSIONS {
        linker.instance(&format!("toolhost:tool/log@{version}"))?.func_new("log", |mut store, _ty, params, _| {
            if let [Val::Enum(level), Val::String(message)] = params {
                log(store.data_mut(), LogLevel::from_wit(level).unwrap_or(LogLevel::Error), message);
            }
            Ok(())
        })?;
    }
    linker.instance("toolhost:tool/progress@0.2.0")?.func_new("report", |mut store, _ty, params, _| {
        if let [Val::Float64(done), total, message] = params {
            let progress = Progress { done: *done, total: option_f64(total), message: option_string(message) };
            let state = store.data_mut();
            let component = state.component.clone();
            state.reports.progress(&component, &progress);
        }
        Ok(())
    })?;
    Ok(())
}

/// A tool's log line: to `tracing`, tagged with its component, and to the caller.
fn log(state: &mut CallState, level: LogLevel, message: &str) {
    let component = state.component.clone();
    match level {
        LogLevel::Trace => tracing::trace!(target: "toolhost::guest", %component, "{message}"),
        LogLevel::Debug => tracing::debug!(target: "toolhost::guest", %component, "{message}"),
        LogLevel::Info => tracing::info!(target: "toolhost::guest", %component, "{message}"),
        LogLevel::Warn => tracing::warn!(target: "toolhost::guest", %component, "{message}"),
        LogLevel::Error => tracing::error!(target: "toolhost::guest", %component, "{message}"),
    }
    state.reports.log(level, &component, message);
}

fn option_f64(value: &Val) -> Option<f64> {
    match value {
        Val::Option(Some(inner)) => match **inner {
            Val::Float64(number) => Some(number),
            _ => None,
        },
        _ => None,
    }
}

fn option_string(value: &Val) -> Option<String> {
    match value {
        Val::Option(Some(inner)) => match &**inner {
            Val::String(text) => Some(text.clone()),
            _ => None,
        },
        _ => None,
    }
}
