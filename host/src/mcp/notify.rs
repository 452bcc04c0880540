//! What a call reports while it runs, sent to the MCP client that made it: progress
//! as `notifications/progress` (when the request carried a `progressToken`), log
//! lines as `notifications/message` at or above the session's `logging/setLevel`
//! (info when the client set none). The reports are queued as the tool makes them
//! and sent in order by one task per call, which the call waits for before it
//! answers, so that every notification comes before the result (or, for a call the
//! HTTP face answers itself, handed to it in order: `http/direct.rs`). Its questions
//! go to the client as requests (`asks.rs`).

#![allow(deprecated, reason = "rmcp marks MCP logging deprecated (SEP-2577); the revisions we serve still have it")]

use std::sync::{Arc, Mutex};

use futures::future::{BoxFuture, FutureExt as _};
use rmcp::model::{
    LoggingLevel, LoggingMessageNotification, LoggingMessageNotificationParam, ProgressNotification,
    ProgressNotificationParam, ProgressToken, ServerNotification,
};
use rmcp::{Peer, RoleServer};
use serde_json::Value;
use tokio::sync::mpsc;

use super::asks;
use crate::mutex::lock;
use crate::sandbox::{CallObserver, Elicitation, ElicitationAnswer, LogLevel, Progress, Sampling};

/// The least important level a session's client wants, as `logging/setLevel` set it.
#[derive(Clone, Default)]
pub(super) struct SessionLevel(Arc<Mutex<Option<LoggingLevel>>>);

impl SessionLevel {
    /// Keeps the level the client asked for.
    pub(super) fn set(&self, level: LoggingLevel) {
        *lock(&self.0) = Some(level);
    }

    fn wants(&self, level: LoggingLevel) -> bool {
        severity(level) >= lock(&self.0).map_or(severity(LoggingLevel::Info), severity)
    }
}

/// MCP's levels in order of severity.
fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// A tool's log level in MCP's terms.
fn mcp_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Trace | LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Warn => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
    }
}

/// The observer of one call: queues what the client is to be told.
pub(super) struct ClientObserver {
    /// Whom its questions go to; none for a call answered without a session's peer
    /// (its questions take rounds: `rounds.rs`).
    peer: Option<Peer<RoleServer>>,
    queue: mpsc::UnboundedSender<ServerNotification>,
    progress_token: Option<ProgressToken>,
    level: SessionLevel,
}

impl CallObserver for ClientObserver {
    fn progress(&self, progress: &Progress) {
        let Some(token) = &self.progress_token else { return };
        let mut notice = ProgressNotificationParam::new(token.clone(), progress.done);
        notice.total = progress.total;
        notice.message = progress.message.clone();
        let _ = self.queue.send(ProgressNotification::new(notice).into());
    }

    fn log(&self, level: LogLevel, component: &str, message: &str) {
        let level = mcp_level(level);
        if self.level.wants(level) {
            let notice = LoggingMessageNotificationParam::new(level, Value::String(message.to_string()));
            let _ = self.queue.send(LoggingMessageNotification::new(notice.with_logger(component)).into());
        }
    }

    fn elicit(&self, question: Elicitation) -> BoxFuture<'static, ElicitationAnswer> {
        match &self.peer {
            Some(peer) => asks::elicit(peer.clone(), question).boxed(),
            None => futures::future::ready(ElicitationAnswer::Decline).boxed(),
        }
    }

    fn sample(&self, request: Sampling) -> BoxFuture<'static, Result<String, String>> {
        match &self.peer {
            Some(peer) => asks::sample(peer.clone(), request).boxed(),
            None => futures::future::ready(Err("this client cannot be asked to sample".to_string())).boxed(),
        }
    }
}

/// Starts telling `peer` what one call reports: the observer to run the call with,
/// and the task sending its notices, which ends once the observer is dropped.
pub(super) fn observe(
    peer: Peer<RoleServer>,
    progress_token: Option<ProgressToken>,
    level: SessionLevel,
) -> (Arc<ClientObserver>, tokio::task::JoinHandle<()>) {
    let (queue, mut notices) = mpsc::unbounded_channel();
    let client = peer.clone();
    let sender = tokio::spawn(async move {
        while let Some(notice) = notices.recv().await {
            if let Err(error) = peer.send_notification(notice).await {
                tracing::debug!("the MCP client cannot be told of a call's progress or logs: {error}");
                return;
            }
        }
    });
    (Arc::new(ClientObserver { peer: Some(client), queue, progress_token, level }), sender)
}

/// An observer handing what one call reports to `queue`, in order, for whoever
/// answers the call to send.
#[cfg(feature = "http")]
pub(super) fn observe_into(
    queue: mpsc::UnboundedSender<ServerNotification>,
    progress_token: Option<ProgressToken>,
    level: SessionLevel,
) -> Arc<ClientObserver> {
    Arc::new(ClientObserver { peer: None, queue, progress_token, level })
}

/// A call's progress as a task's status message: "50 of 100 done: message".
pub(super) fn progress_message(progress: &Progress) -> String {
    let done = match progress.total {
        Some(total) => format!("{} of {total} done", progress.done),
        None => format!("{} done", progress.done),
    };
    match &progress.message {
        Some(message) => format!("{done}: {message}"),
        None => done,
    }
}
