//! Long calls as tasks (MCP's `io.modelcontextprotocol/tasks` extension, in the
//! stateless revision): when a `tools/call` request says its client takes tasks and
//! the call still runs after the server's patience (one second unless set), the
//! request is answered with a task (`resultType: "task"`) the client polls with
//! `tasks/get`. The call's progress becomes the task's status message, its questions
//! the task's `inputRequests` (answered by `tasks/update`), and `tasks/cancel` stops
//! the instance at its next epoch tick, as `notifications/cancelled` does. A tool
//! whose manifest says `task = "required"` runs as a task at once (a client that
//! does not take tasks is refused); `"forbidden"`, never. rmcp's
//! `TaskManager` keeps the tasks; one is kept ten minutes, and at most 256 run at
//! once: past that a call stays in its request. Replicas sharing a store mirror
//! their tasks' state into it and find each other's there (`store.rs`).

#![allow(deprecated, reason = "rmcp marks MCP sampling deprecated (SEP-2577); the revisions we serve still have it")]

use std::sync::Arc;
use std::time::Duration;

use futures::future::FutureExt as _;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ClientCapabilities, CreateTaskResult, DetailedTask, InputRequest, InputResponses};
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};
use serde_json::Value;
use tokio::sync::Notify;

use super::asks::{elicitation_params, reply_text, sampling_params};
use super::rounds::{Event, FORGET_AFTER, Running, elicit_answer, request};
use crate::error::ToolError;
use crate::host::CallOutcome;
use crate::sandbox::ElicitationAnswer;
use crate::tool::TaskSupport;

/// How long a call runs in its request before it goes on as a task, unless set.
pub(crate) const DEFAULT_PATIENCE: Duration = Duration::from_secs(1);
/// Tasks running at once, at most.
const MAX_RUNNING: usize = 256;
/// How often a client is asked to poll, in milliseconds.
const POLL_INTERVAL_MS: u64 = 500;

/// The tasks of a server, shared by every session, and how long a call runs in its
/// request first (`None`: calls never become tasks).
#[derive(Clone)]
pub(super) struct Tasks {
    manager: TaskManager,
    patience: Option<Duration>,
    /// The store shared with other replicas, where each task's state is mirrored
    /// and other replicas' tasks are found.
    #[cfg(feature = "http")]
    store: Option<super::store::Store>,
}

impl Default for Tasks {
    fn default() -> Tasks {
        Tasks::after(Some(DEFAULT_PATIENCE))
    }
}

impl Tasks {
    /// Tasks for calls still running after `patience`; none when it is `None`.
    pub(super) fn after(patience: Option<Duration>) -> Tasks {
        Tasks {
            manager: TaskManager::new(),
            patience,
            #[cfg(feature = "http")]
            store: None,
        }
    }

    /// The same tasks, mirrored into `store`, and other replicas' tasks found there.
    #[cfg(feature = "http")]
    pub(super) fn shared(self, store: super::store::Store) -> Tasks {
        Tasks { store: Some(store), ..self }
    }

    /// Whether calls may become tasks at all (the capability to declare).
    pub(super) fn offered(&self) -> bool {
        self.patience.is_some()
    }

    /// How long a call of a tool with `support`, by a client with `capabilities`, runs
    /// before it becomes a task: `None` when it never does (the tool forbids it, its
    /// client does not take tasks, or too many run already); an error when the tool
    /// requires a task and the client does not take them.
    pub(super) fn patience(
        &self,
        support: TaskSupport,
        capabilities: Option<&ClientCapabilities>,
    ) -> Result<Option<Duration>, ErrorData> {
        let Some(patience) = self.patience else { return Ok(None) };
        let takes_tasks = capabilities.is_some_and(ClientCapabilities::supports_tasks);
        match support {
            TaskSupport::Forbidden => return Ok(None),
            TaskSupport::Required if !takes_tasks => {
                return Err(ErrorData::missing_required_client_capability(
                    ClientCapabilities::builder().enable_tasks().build(),
                ));
            }
            _ if !takes_tasks => return Ok(None),
            _ => {}
        }
        if self.manager.running_task_count() >= MAX_RUNNING {
            tracing::warn!("{MAX_RUNNING} MCP tasks run already: a long call stays in its request");
            return Ok(None);
        }
        Ok(Some(if support == TaskSupport::Required { Duration::ZERO } else { patience }))
    }

    /// Goes on with `running` as a task, whose result `finish` makes of the outcome;
    /// with a shared store, once the store has it (so that any replica knows it).
    pub(super) async fn adopt(
        &self,
        running: Running,
        finish: impl FnOnce(CallOutcome) -> CallToolResult + Send + 'static,
    ) -> CreateTaskResult {
        let options = TaskOptions::new()
            .with_ttl_ms(u64::try_from(FORGET_AFTER.as_millis()).unwrap_or(u64::MAX))
            .with_poll_interval_ms(POLL_INTERVAL_MS)
            .with_status_message("The call is running.");
        let task = self.manager.spawn(options, move |context| follow(running, context, finish).boxed());
        #[cfg(feature = "http")]
        if let Some(store) = &self.store {
            let mut mirror = Mirror::new(self.manager.clone(), task.task_id.clone(), store.clone());
            mirror.copy().await;
            tokio::spawn(mirror.follow());
        }
        CreateTaskResult::new(task)
    }

    /// `tasks/get`: the task's state, with its questions or its result (of a task
    /// another replica runs, from the store).
    pub(super) async fn get(&self, task_id: &str) -> Result<DetailedTask, ErrorData> {
        let here = self.manager.get_task(task_id);
        #[cfg(feature = "http")]
        if let (Err(_), Some(store)) = (&here, &self.store)
            && let Some(task) = store.task(task_id).await?
        {
            return Ok(task);
        }
        here
    }

    /// `tasks/update`: the client's answers to the task's questions (sent to the
    /// replica running it, if another one).
    pub(super) async fn update(&self, task_id: &str, responses: InputResponses) -> Result<(), ErrorData> {
        #[cfg(feature = "http")]
        if let Some(store) = &self.store
            && self.manager.get_task(task_id).is_err()
            && store.update_task(task_id, responses.clone()).await?
        {
            return Ok(());
        }
        self.manager.update_task(task_id, responses)
    }

    /// `tasks/cancel`: stops the task's call (on the replica running it).
    pub(super) async fn cancel(&self, task_id: &str) -> Result<(), ErrorData> {
        #[cfg(feature = "http")]
        if let Some(store) = &self.store
            && self.manager.get_task(task_id).is_err()
            && store.cancel_task(task_id).await?
        {
            return Ok(());
        }
        self.manager.cancel_task(task_id)
    }

    /// Acts on another replica's `tasks/update` or `tasks/cancel` of a task run here.
    #[cfg(feature = "http")]
    pub(super) fn asked(&self, asked: super::store::Asked) {
        let outcome = match asked {
            super::store::Asked::Update { task, responses } => self.manager.update_task(&task, responses),
            super::store::Asked::Cancel { task } => self.manager.cancel_task(&task),
            super::store::Asked::Resume(_) => return,
        };
        if let Err(error) = outcome {
            tracing::debug!("another replica asked about a task this one no longer has: {}", error.message);
        }
    }
}

/// How often a task's state is copied into the shared store while it changes.
#[cfg(feature = "http")]
const MIRROR_EVERY: Duration = Duration::from_millis(100);

/// A task's state copied into the shared store whenever it changes, until it has
/// ended (or been forgotten).
#[cfg(feature = "http")]
struct Mirror {
    manager: TaskManager,
    id: String,
    store: super::store::Store,
    /// The state last written.
    written: String,
    /// Whether the last write failed (said once, not at every try).
    failing: bool,
}

#[cfg(feature = "http")]
impl Mirror {
    fn new(manager: TaskManager, id: String, store: super::store::Store) -> Mirror {
        Mirror { manager, id, store, written: String::new(), failing: false }
    }

    /// Writes the task's state if it changed; whether there may be more to write
    /// (not once the task's last state is written, or the task is forgotten).
    async fn copy(&mut self) -> bool {
        let Ok(task) = self.manager.get_task(&self.id) else { return false };
        let state = serde_json::to_string(&task).unwrap_or_default();
        if state == self.written {
            return !task.status().is_terminal();
        }
        match self.store.put_task(&self.id, &state).await {
            Ok(()) => (self.written, self.failing) = (state, false),
            Err(error) if !self.failing => {
                tracing::warn!("cannot write task {}'s state to the shared store: {error}", self.id);
                self.failing = true;
            }
            Err(_) => {}
        }
        true
    }

    /// Writes each change until there is none left to write.
    async fn follow(mut self) {
        while self.copy().await {
            tokio::time::sleep(MIRROR_EVERY).await;
        }
    }
}

/// Follows a call that became a task until it ends: asks the client its questions
/// through the task, and cancels the call when the client cancels the task.
async fn follow(
    running: Running,
    context: TaskContext,
    finish: impl FnOnce(CallOutcome) -> CallToolResult,
) -> Result<CallToolResult, TaskExit> {
    let Running { mut events, cancel, task } = running;
    let _ = task.set(context.clone());
    // The task forgotten (its time to live over) drops this future: the call stops too.
    let _stop = StopOnDrop(cancel.clone());
    let mut asked = 0u32;
    let mut cancelled = false;
    loop {
        let event = tokio::select! {
            event = events.recv() => event,
            () = context.cancelled(), if !cancelled => {
                cancelled = true;
                cancel.notify_one();
                continue;
            }
        };
        asked += 1;
        match event {
            Some(Event::Done(outcome)) => {
                return match outcome.result {
                    Err(ToolError::Cancelled { .. }) => Err(TaskExit::Cancelled),
                    _ => Ok(finish(outcome)),
                };
            }
            Some(Event::Elicit(question, answer)) => {
                let request = request("elicitation/create", elicitation_params(&question));
                let key = format!("elicit-{asked}");
                ask(&context, key, request, move |reply| {
                    let _ = answer.send(reply.map_or(ElicitationAnswer::Cancel, |reply| elicit_answer(&reply)));
                });
            }
            Some(Event::Sample(question, answer)) => {
                let request = request("sampling/createMessage", sampling_params(&question));
                let key = format!("sample-{asked}");
                ask(&context, key, request, move |reply| {
                    let _ = answer.send(reply.map_or_else(|| Err("the task was cancelled".into()), |r| reply_text(&r)));
                });
            }
            None => {
                return Err(TaskExit::Error(ErrorData::internal_error("the call ended without an outcome", None)));
            }
        }
    }
}

/// Puts `request` to the client under `key` as one of the task's `inputRequests`,
/// and hands `answered` the client's reply (`None` when the task was cancelled or
/// ended first, or the request cannot be put).
fn ask(context: &TaskContext, key: String, request: Value, answered: impl FnOnce(Option<Value>) + Send + 'static) {
    let request: InputRequest = match serde_json::from_value(request) {
        Ok(request) => request,
        Err(error) => {
            tracing::warn!("an input request rmcp does not take ({error}): the question is not put");
            return answered(None);
        }
    };
    let context = context.clone();
    tokio::spawn(async move { answered(context.request_input(key, request).await.ok()) });
}

/// Cancels a call when dropped.
struct StopOnDrop(Arc<Notify>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}
