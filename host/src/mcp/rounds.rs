//! A tool's questions in the stateless MCP revision (2026-07-28 and later), which
//! forbids server-to-client requests (SEP-2322, multi round-trip requests): the call
//! runs on a task of its own; when it asks, `tools/call` is answered with an
//! `InputRequiredResult` (the question under a key, `requestState` naming the
//! waiting call), and the client's retry, carrying `inputResponses` and that
//! `requestState`, hands the answer to the call, which runs on. The call's time
//! limit counts throughout; a waiting call nobody resumes ends at it and is forgotten
//! ten minutes later. At most 256 calls wait at once: past that a question is
//! declined. A client that closes a round's request cancels the call. A client
//! that takes tasks gets one for a call still running after a while (`tasks.rs`).
//! Replicas sharing a store name their waiting calls `REPLICA.RANDOM`, so that a
//! retry reaching another replica is relayed to this one (`store.rs`).

#![allow(deprecated, reason = "rmcp marks MCP sampling deprecated (SEP-2577); the revisions we serve still have it")]

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use futures::future::{BoxFuture, FutureExt as _};
use rmcp::model::{ClientCapabilities, InputRequiredResult};
use rmcp::task_manager::TaskContext;
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc, oneshot};

use super::asks::{NO_SAMPLING, elicitation_params, sampling_params};
use super::notify::ClientObserver;
use crate::host::CallOutcome;
use crate::mutex::lock;
use crate::sandbox::{CallObserver, Elicitation, ElicitationAnswer, LogLevel, Progress, Sampling};

/// Calls waiting for an answer, at most.
const MAX_WAITING: usize = 256;
/// How long a waiting call nobody resumed is kept (its time limit ends it sooner).
pub(super) const FORGET_AFTER: Duration = Duration::from_secs(600);
/// The keys of the one question a round asks.
const ELICIT_KEY: &str = "elicit";
const SAMPLE_KEY: &str = "sample";

/// What a running call does next.
pub(super) enum Event {
    /// It asks the person.
    Elicit(Elicitation, oneshot::Sender<ElicitationAnswer>),
    /// It asks the client's model.
    Sample(Sampling, oneshot::Sender<Result<String, String>>),
    /// It ended.
    Done(CallOutcome),
}

/// Where the answer to a waiting call's question goes.
pub(super) enum Answer {
    Elicit(oneshot::Sender<ElicitationAnswer>),
    Sample(oneshot::Sender<Result<String, String>>),
}

/// A call between two rounds.
struct Waiting {
    running: Running,
    answer: Answer,
    since: Instant,
}

/// A running call, for one round: what it does next, how to cancel it, and the
/// task it became, if it did.
pub(super) struct Running {
    pub(super) events: mpsc::UnboundedReceiver<Event>,
    /// Cancels the call.
    pub(super) cancel: Arc<Notify>,
    /// Set once the call goes on as a task: its reports then go there.
    pub(super) task: Arc<OnceLock<TaskContext>>,
}

/// What a round of a call ends with.
pub(super) enum Round {
    /// The call ended.
    Done(CallOutcome),
    /// The call asks: answer the client with this.
    Asks(Box<InputRequiredResult>),
    /// The call runs on past the round's patience: it may go on as a task.
    Long(Running),
}

/// The waiting calls, shared by every session of a server.
#[derive(Clone, Default)]
pub(super) struct Rounds {
    waiting: Arc<Mutex<HashMap<String, Waiting>>>,
    /// The replica's name in a shared store, which starts each waiting call's name
    /// (`REPLICA.RANDOM`), so that another replica knows where the call waits.
    replica: Option<Arc<str>>,
}

impl Rounds {
    /// The same waiting calls, named as replica `replica`'s.
    #[cfg(feature = "http")]
    pub(super) fn of_replica(self, replica: &str) -> Rounds {
        Rounds { replica: Some(replica.into()), ..self }
    }

    /// Starts a call's first round: the observer to run it with (asking through
    /// events when `capabilities` allow, reporting through `reports`), the running
    /// call's handle, the sender its task reports its end with, and what cancels it.
    pub(super) fn start(
        reports: Arc<ClientObserver>,
        capabilities: Option<&ClientCapabilities>,
    ) -> (Arc<RoundObserver>, Running, mpsc::UnboundedSender<Event>, Arc<Notify>) {
        let (events, received) = mpsc::unbounded_channel();
        let cancel = Arc::new(Notify::new());
        let task = Arc::new(OnceLock::new());
        let observer = RoundObserver {
            reports,
            events: events.clone(),
            task: task.clone(),
            can_elicit: capabilities.is_some_and(|c| c.elicitation.is_some()),
            can_sample: capabilities.is_some_and(|c| c.sampling.is_some()),
        };
        (Arc::new(observer), Running { events: received, cancel: cancel.clone(), task }, events, cancel)
    }

    /// Resumes the call `state` names with the client's `responses`; `None` when no
    /// call waits under that name.
    pub(super) fn resume(
        &self,
        state: &str,
        responses: Option<&std::collections::BTreeMap<String, Value>>,
    ) -> Option<Running> {
        let waiting = lock(&self.waiting).remove(state)?;
        let response = |key: &str| responses.and_then(|all| all.get(key)).cloned().unwrap_or(Value::Null);
        match waiting.answer {
            Answer::Elicit(answer) => {
                let _ = answer.send(elicit_answer(&response(ELICIT_KEY)));
            }
            Answer::Sample(answer) => {
                let _ = answer.send(super::asks::reply_text(&response(SAMPLE_KEY)));
            }
        }
        Some(waiting.running)
    }

    /// Runs one round of `running`: until it ends or asks, or `closed` (the round's
    /// request went away), which cancels the call, or until `patience` runs out.
    pub(super) async fn round(
        &self,
        mut running: Running,
        closed: impl Future<Output = ()>,
        patience: Option<Duration>,
    ) -> Option<Round> {
        let mut closed = std::pin::pin!(closed);
        let mut out_of_patience = std::pin::pin!(async {
            match patience {
                Some(patience) => tokio::time::sleep(patience).await,
                None => std::future::pending().await,
            }
        });
        loop {
            // Biased: what the call did comes first, so a call that asks or ends at
            // once is not made a task by a patience of zero.
            let event = tokio::select! {
                biased;
                event = running.events.recv() => event?,
                () = &mut closed => {
                    running.cancel.notify_one();
                    return None;
                }
                () = &mut out_of_patience => return Some(Round::Long(running)),
            };
            let (answer, request) = match event {
                Event::Done(outcome) => return Some(Round::Done(outcome)),
                Event::Elicit(question, answer) => {
                    (Answer::Elicit(answer), (ELICIT_KEY, request("elicitation/create", elicitation_params(&question))))
                }
                Event::Sample(asked, answer) => {
                    (Answer::Sample(answer), (SAMPLE_KEY, request("sampling/createMessage", sampling_params(&asked))))
                }
            };
            match self.park(running, answer, request) {
                Ok(asks) => return Some(Round::Asks(Box::new(asks))),
                // Too many calls wait: the question was declined, and the call runs on.
                Err(returned) => running = returned,
            }
        }
    }

    /// Keeps the call waiting for its answer and says what to ask the client; gives
    /// `running` back (the question declined at once) when too many calls wait.
    fn park(
        &self,
        running: Running,
        answer: Answer,
        (key, request): (&str, Value),
    ) -> Result<InputRequiredResult, Running> {
        let mut waiting = lock(&self.waiting);
        waiting.retain(|_, call| call.since.elapsed() < FORGET_AFTER);
        if waiting.len() >= MAX_WAITING {
            tracing::warn!("{MAX_WAITING} MCP calls wait for answers already: a question is declined");
            answer.decline("the host has too many calls waiting for answers");
            return Err(running);
        }
        let Some(state) = random_name().map(|name| match &self.replica {
            Some(replica) => format!("{replica}.{name}"),
            None => name,
        }) else {
            answer.decline("the host has no random bytes to name the waiting call");
            return Err(running);
        };
        let result = json!({"resultType": "input_required", "inputRequests": {key: request}, "requestState": state});
        match serde_json::from_value(result) {
            Ok(asks) => {
                waiting.insert(state, Waiting { running, answer, since: Instant::now() });
                Ok(asks)
            }
            Err(error) => {
                tracing::warn!("an input request rmcp does not take ({error}): the question is declined");
                answer.decline("the request cannot be sent");
                Err(running)
            }
        }
    }
}

impl Answer {
    /// Answers without asking: the person declines; the model gives no text, saying `why`.
    pub(super) fn decline(self, why: &str) {
        match self {
            Answer::Elicit(answer) => drop(answer.send(ElicitationAnswer::Decline)),
            Answer::Sample(answer) => drop(answer.send(Err(why.to_string()))),
        }
    }
}

/// Runs a call asking through [`Rounds`]: its questions become events; its progress
/// and log lines go to the client as in a session, until the call becomes a task:
/// then its progress is the task's status message, and its log lines stay in the
/// host's log (the tasks extension sends neither).
pub(super) struct RoundObserver {
    reports: Arc<ClientObserver>,
    events: mpsc::UnboundedSender<Event>,
    task: Arc<OnceLock<TaskContext>>,
    can_elicit: bool,
    can_sample: bool,
}

impl CallObserver for RoundObserver {
    fn progress(&self, progress: &Progress) {
        match self.task.get() {
            Some(task) => task.set_status_message(super::notify::progress_message(progress)),
            None => self.reports.progress(progress),
        }
    }

    fn log(&self, level: LogLevel, component: &str, message: &str) {
        if self.task.get().is_none() {
            self.reports.log(level, component, message);
        }
    }

    fn elicit(&self, question: Elicitation) -> BoxFuture<'static, ElicitationAnswer> {
        let (answer, answered) = oneshot::channel();
        if !self.can_elicit || self.events.send(Event::Elicit(question, answer)).is_err() {
            return futures::future::ready(ElicitationAnswer::Decline).boxed();
        }
        async move { answered.await.unwrap_or(ElicitationAnswer::Cancel) }.boxed()
    }

    fn sample(&self, request: Sampling) -> BoxFuture<'static, Result<String, String>> {
        let (answer, answered) = oneshot::channel();
        if !self.can_sample {
            return futures::future::ready(Err(NO_SAMPLING.to_string())).boxed();
        }
        if self.events.send(Event::Sample(request, answer)).is_err() {
            return futures::future::ready(Err("the call's request is gone".to_string())).boxed();
        }
        async move { answered.await.unwrap_or_else(|_| Err("the client did not answer".into())) }.boxed()
    }
}

/// A request of `method` with `params`, as MCP's JSON.
pub(super) fn request(method: &str, params: Value) -> Value {
    json!({"method": method, "params": params})
}

/// A fresh name (for a waiting call, a replica, a relayed round): 128 random bits,
/// in hex. A client echoes a waiting call's; it names nothing else, so it needs no
/// seal.
pub(super) fn random_name() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// What an `ElicitResult` (MCP's JSON) says the person did; cancel when it says
/// nothing readable.
pub(super) fn elicit_answer(result: &Value) -> ElicitationAnswer {
    match result["action"].as_str() {
        Some("accept") => ElicitationAnswer::Accept(result.get("content").cloned().unwrap_or_else(|| json!({}))),
        Some("decline") => ElicitationAnswer::Decline,
        _ => ElicitationAnswer::Cancel,
    }
}
