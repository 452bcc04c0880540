//! Replicas sharing a Redis or Valkey store, so that the stateless revision needs no
//! affinity. The replica running a task mirrors its state into the store, so any
//! replica answers its `tasks/get`; a `tasks/update`, a `tasks/cancel`, or a round's
//! answer (a retry carrying `requestState`) that reaches another replica is sent to
//! the running one over the store's pub/sub, and the round's next answer comes back
//! the same way. A call only ever runs on the replica that started it. Every replica
//! keeps a heartbeat key: a task whose replica's heartbeat has lapsed is answered
//! failed, saying so, and a round relayed to it ends with an error.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures::StreamExt as _;
use redis::AsyncCommands as _;
use redis::aio::{ConnectionManager, ConnectionManagerConfig, PubSubStream};
use rmcp::ErrorData;
use rmcp::model::{CallToolResponse, CallToolResult, CreateTaskResult, DetailedTask, InputRequiredResult, TaskPayload};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::mutex::lock;

/// How long a replica's heartbeat lasts unless renewed, and how often it is.
const HEARTBEAT_TTL: Duration = Duration::from_secs(5);
const HEARTBEAT_EVERY: Duration = Duration::from_secs(1);
/// How long a task's state stays in the store: its replica forgets it after ten
/// minutes; the store keeps it as long again.
const TASK_TTL: Duration = Duration::from_secs(1200);
/// How long a command to the store may take.
const STORE_TIMEOUT: Duration = Duration::from_secs(5);

/// A Redis or Valkey store shared by the replicas of one server (see
/// [`super::http::HttpOptions::store`]): with it, any replica answers any request of the
/// stateless revision.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
#[error("the shared store at {at}: {reason}")]
pub struct StoreError {
    /// The store's address, without its password.
    at: String,
    reason: String,
}

struct Inner {
    /// This replica's name (random), under which it beats and listens.
    replica: String,
    commands: ConnectionManager,
    /// Rounds sent to other replicas, waiting for their next answer, by round name.
    relayed: Mutex<HashMap<String, oneshot::Sender<Answer>>>,
    /// Rounds run here for other replicas, told when their client left, by round name.
    closing: Mutex<HashMap<String, oneshot::Sender<()>>>,
    /// What other replicas ask of this one, until the server takes it.
    inbox: Mutex<Option<mpsc::UnboundedReceiver<Asked>>>,
    asked: mpsc::UnboundedSender<Asked>,
    /// Ends the heartbeat and the listening when the last handle goes.
    stop: CancellationToken,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("replica", &self.inner.replica).finish_non_exhaustive()
    }
}

/// What another replica asks of this one's server.
pub(crate) enum Asked {
    /// A client's answers to a task's questions.
    Update { task: String, responses: BTreeMap<String, Value> },
    /// A client cancels a task.
    Cancel { task: String },
    /// A client's retry resumes a call waiting here.
    Resume(Resume),
}

/// A round of a call waiting here, asked by another replica.
pub(crate) struct Resume {
    pub(crate) state: String,
    pub(crate) responses: Option<BTreeMap<String, Value>>,
    pub(crate) patience: Option<Duration>,
    /// The round's name, and the replica its answer goes to.
    pub(crate) round: String,
    pub(crate) reply_to: String,
}

/// What the replicas tell each other, as JSON on each one's channel.
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Message {
    Update {
        task: String,
        responses: BTreeMap<String, Value>,
    },
    Cancel {
        task: String,
    },
    Resume {
        state: String,
        responses: Option<BTreeMap<String, Value>>,
        patience_ms: Option<u64>,
        round: String,
        reply_to: String,
    },
    /// The client of a relayed round left: cancel the call.
    Closed {
        round: String,
    },
    /// A relayed round's answer.
    Answered {
        round: String,
        answer: Answer,
    },
}

/// A round's answer, as it travels between replicas.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Answer {
    Complete(CallToolResult),
    InputRequired(InputRequiredResult),
    Task(CreateTaskResult),
    Error(ErrorData),
}

/// Where the shared store is, and for a `rediss://` address the certificates to
/// trust and to show: the system's trusted authorities and no client certificate
/// unless given.
#[derive(Clone)]
pub struct StoreAddress {
    url: String,
    ca: Option<PathBuf>,
    identity: Option<(PathBuf, PathBuf)>,
}

impl StoreAddress {
    /// The store at `url`: `redis://[:PASSWORD@]HOST[:PORT][/DB]`, or `rediss://` for TLS.
    pub fn new(url: impl Into<String>) -> StoreAddress {
        StoreAddress { url: url.into(), ca: None, identity: None }
    }

    /// Trusts the authorities in this PEM file (instead of the system's) to have signed
    /// the store's certificate: a store with a private authority.
    pub fn ca_file(mut self, pem: impl Into<PathBuf>) -> StoreAddress {
        self.ca = Some(pem.into());
        self
    }

    /// Shows this certificate (a PEM chain) and its key (PEM) to a store that asks
    /// clients for one (Redis's `tls-auth-clients`, on by default).
    pub fn client_cert(mut self, chain: impl Into<PathBuf>, key: impl Into<PathBuf>) -> StoreAddress {
        self.identity = Some((chain.into(), key.into()));
        self
    }

    fn is_tls(&self) -> bool {
        self.url.starts_with("rediss://")
    }

    /// A client for the store, with the certificates read.
    fn client(&self) -> Result<redis::Client, String> {
        let not_an_address = |e: redis::RedisError| format!("not a store address: {e}");
        if !self.is_tls() {
            if self.ca.is_some() || self.identity.is_some() {
                return Err("certificates are given, but the address is not a TLS one: write it rediss://".into());
            }
            return redis::Client::open(self.url.as_str()).map_err(not_an_address);
        }
        // Both of rustls's providers are built in (other crates ask for ring), so
        // rustls cannot pick one itself; a provider installed before is kept.
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        let root_cert = self.ca.as_deref().map(|file| read_pem(file, "authorities' certificates")).transpose()?;
        let client_tls = match &self.identity {
            Some((chain, key)) => Some(redis::ClientTlsConfig {
                client_cert: read_pem(chain, "client certificate")?,
                client_key: read_pem(key, "client certificate's key")?,
            }),
            None => None,
        };
        let certificates = redis::TlsCertificates { client_tls, root_cert };
        redis::Client::build_with_tls(self.url.as_str(), certificates).map_err(|e| match e.kind() {
            redis::ErrorKind::InvalidClientConfig => not_an_address(e),
            _ => format!("cannot use the certificates given: {e}"),
        })
    }

    /// Why connecting failed, with what to do when it is the certificates.
    fn cannot_connect(&self, error: &redis::RedisError) -> String {
        let text = error.to_string();
        let hint = if !self.is_tls() {
            ""
        } else if text.contains("UnknownIssuer") && self.ca.is_none() {
            " (the store's certificate is signed by an authority this system does not trust: give that \
             authority's certificate, `--store-ca FILE`)"
        } else if text.contains("CertificateRequired") && self.identity.is_none() {
            " (the store asks for a client certificate: give one, `--store-cert FILE --store-key FILE`)"
        } else if text.contains("NotValidForName") {
            " (the store's certificate does not name the host in the address: address it by a name its \
             certificate holds)"
        } else {
            ""
        };
        format!("cannot connect: {text}{hint}")
    }
}

impl std::fmt::Debug for StoreAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreAddress")
            .field("url", &without_password(&self.url))
            .field("ca", &self.ca)
            .field("identity", &self.identity)
            .finish()
    }
}

impl From<&str> for StoreAddress {
    fn from(url: &str) -> StoreAddress {
        StoreAddress::new(url)
    }
}

impl From<String> for StoreAddress {
    fn from(url: String) -> StoreAddress {
        StoreAddress::new(url)
    }
}

/// A PEM file's bytes, or why they cannot be read.
fn read_pem(file: &Path, what: &str) -> Result<Vec<u8>, String> {
    std::fs::read(file).map_err(|e| format!("cannot read the {what} at {}: {e}", file.display()))
}

impl Store {
    /// Connects to the store at `address` (`redis://[:PASSWORD@]HOST[:PORT][/DB]`, or
    /// `rediss://` for TLS), starts this replica's heartbeat and listens for what other
    /// replicas ask of it.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), toolhost::mcp::http::StoreError> {
    /// use toolhost::mcp::http::{Store, StoreAddress};
    /// let plain = Store::connect("redis://:password@store:6379").await?;
    /// let private_ca = StoreAddress::new("rediss://:password@store:6380").ca_file("/etc/toolhost/store-ca.pem");
    /// let over_tls = Store::connect(private_ca).await?;
    /// # Ok(()) }
    /// ```
    pub async fn connect(address: impl Into<StoreAddress>) -> Result<Store, StoreError> {
        let address = address.into();
        let at = without_password(&address.url);
        let failed = |reason: String| StoreError { at: at.clone(), reason };
        let client = address.client().map_err(failed)?;
        // Once plainly, for the reason it fails (the manager below retries instead).
        tokio::time::timeout(STORE_TIMEOUT, ping(&client))
            .await
            .map_err(|_| failed("no answer within 5 s".into()))?
            .map_err(|e| failed(address.cannot_connect(&e)))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(STORE_TIMEOUT))
            .set_response_timeout(Some(STORE_TIMEOUT));
        let commands = tokio::time::timeout(STORE_TIMEOUT, ConnectionManager::new_with_config(client.clone(), config))
            .await
            .map_err(|_| failed("no answer within 5 s".into()))?
            .map_err(|e| failed(format!("cannot connect: {e}")))?;
        let replica = super::rounds::random_name().ok_or_else(|| failed("no random bytes for a name".into()))?;
        let listening =
            subscribe(&client, &channel(&replica)).await.map_err(|e| failed(format!("cannot subscribe: {e}")))?;
        let (asked, inbox) = mpsc::unbounded_channel();
        let inner = Arc::new(Inner {
            replica,
            commands,
            relayed: Mutex::default(),
            closing: Mutex::default(),
            inbox: Mutex::new(Some(inbox)),
            asked,
            stop: CancellationToken::new(),
        });
        let store = Store { inner };
        store.beat().await.map_err(|e| failed(format!("cannot write the heartbeat: {e}")))?;
        let weak = Arc::downgrade(&store.inner);
        tokio::spawn(keep_beating(weak.clone(), store.inner.stop.clone()));
        tokio::spawn(listen(weak, client, listening, store.inner.stop.clone()));
        tracing::info!("replica {} shares tasks and rounds through the store at {at}", store.inner.replica);
        Ok(store)
    }

    /// This replica's name in the store.
    pub fn replica(&self) -> &str {
        &self.inner.replica
    }

    /// What other replicas ask of this one, for the server to act on (once).
    pub(crate) fn take_inbox(&self) -> Option<mpsc::UnboundedReceiver<Asked>> {
        lock(&self.inner.inbox).take()
    }

    /// Writes task `id`'s state (its JSON), as its replica (this one) has it.
    pub(crate) async fn put_task(&self, id: &str, state: &str) -> redis::RedisResult<()> {
        self.put_task_json(id, &self.inner.replica, state).await
    }

    async fn put_task_json(&self, id: &str, owner: &str, state: &str) -> redis::RedisResult<()> {
        let key = task_key(id);
        let mut commands = self.inner.commands.clone();
        redis::pipe()
            .hset(&key, "owner", owner)
            .hset(&key, "state", state)
            .expire(&key, TASK_TTL.as_secs().cast_signed())
            .exec_async(&mut commands)
            .await
    }

    /// A task another replica runs (or ran): its state, failed when that replica
    /// stopped before it ended; `None` when the store has no such task.
    pub(crate) async fn task(&self, id: &str) -> Result<Option<DetailedTask>, ErrorData> {
        let Some((owner, state)) = self.task_entry(id).await? else { return Ok(None) };
        let mut task: DetailedTask = serde_json::from_str(&state).map_err(|e| {
            ErrorData::internal_error(format!("the store holds a task this server cannot read: {e}"), None)
        })?;
        if task.status().is_terminal() || self.alive(&owner).await? {
            return Ok(Some(task));
        }
        let error = ErrorData::internal_error(
            "the server replica running this task stopped before it ended: call the tool again",
            None,
        );
        let error = serde_json::to_value(error).ok().and_then(|e| e.as_object().cloned()).unwrap_or_default();
        task = DetailedTask::new(task.task, TaskPayload::Failed { error });
        task.task.last_updated_at = chrono::Utc::now().to_rfc3339();
        if let Err(e) = self.put_task_json(id, &owner, &serde_json::to_string(&task).unwrap_or_default()).await {
            tracing::warn!("cannot record in the store that task {id} failed: {e}");
        }
        Ok(Some(task))
    }

    /// Sends `tasks/update`'s answers to the replica running the task.
    pub(crate) async fn update_task(&self, id: &str, responses: BTreeMap<String, Value>) -> Result<bool, ErrorData> {
        self.tell_task_owner(id, Message::Update { task: id.to_string(), responses }).await
    }

    /// Sends `tasks/cancel` to the replica running the task.
    pub(crate) async fn cancel_task(&self, id: &str) -> Result<bool, ErrorData> {
        self.tell_task_owner(id, Message::Cancel { task: id.to_string() }).await
    }

    /// Tells the replica running task `id`; `false` when the store has no such task.
    async fn tell_task_owner(&self, id: &str, message: Message) -> Result<bool, ErrorData> {
        let Some((owner, _)) = self.task_entry(id).await? else { return Ok(false) };
        if self.publish(&owner, &message).await? == 0 {
            return Err(ErrorData::internal_error(
                "the server replica running this task stopped: tasks/get says how it ended",
                None,
            ));
        }
        Ok(true)
    }

    /// The replica that named a waiting call `state`, when it is another one.
    pub(crate) fn other_owner<'a>(&self, state: &'a str) -> Option<&'a str> {
        let (owner, _) = state.split_once('.')?;
        (owner != self.inner.replica).then_some(owner)
    }

    /// Hands a round to the replica `owner`, where its call waits, and waits for
    /// the round's answer: the call's result, its next question, or its task. The
    /// client leaving (`closed`) cancels the call there.
    pub(crate) async fn relay(
        &self,
        owner: &str,
        state: &str,
        responses: Option<BTreeMap<String, Value>>,
        patience: Option<Duration>,
        closed: impl Future<Output = ()>,
    ) -> Result<CallToolResponse, ErrorData> {
        let round = super::rounds::random_name().ok_or_else(|| ErrorData::internal_error("no random bytes", None))?;
        let (answer, mut answered) = oneshot::channel();
        lock(&self.inner.relayed).insert(round.clone(), answer);
        let _forget = Forget(self.inner.clone(), round.clone());
        let patience_ms = patience.map(|p| u64::try_from(p.as_millis()).unwrap_or(u64::MAX));
        let resume = Message::Resume {
            state: state.to_string(),
            responses,
            patience_ms,
            round: round.clone(),
            reply_to: self.inner.replica.clone(),
        };
        if self.publish(owner, &resume).await? == 0 {
            return Err(replica_gone());
        }
        let mut closed = std::pin::pin!(closed);
        let mut beat = tokio::time::interval(HEARTBEAT_EVERY);
        loop {
            tokio::select! {
                answer = &mut answered => {
                    return answer.map_err(|_| ErrorData::internal_error("the store's connection was lost", None))?.into_response();
                }
                () = &mut closed => {
                    let _ = self.publish(owner, &Message::Closed { round }).await;
                    return Err(ErrorData::internal_error("the call was cancelled", None));
                }
                _ = beat.tick() => {
                    if !self.alive(owner).await? {
                        return Err(replica_gone());
                    }
                }
            }
        }
    }

    /// Sends a relayed round's answer back to the replica that relayed it.
    pub(crate) async fn answer(&self, resume: &Resume, answer: Result<CallToolResponse, ErrorData>) {
        let answer = match answer {
            Ok(CallToolResponse::Complete(result)) => Answer::Complete(result),
            Ok(CallToolResponse::InputRequired(asks)) => Answer::InputRequired(asks),
            Ok(CallToolResponse::Task(task)) => Answer::Task(task),
            Ok(_) => Answer::Error(ErrorData::internal_error("an answer this server cannot relay", None)),
            Err(error) => Answer::Error(error),
        };
        let message = Message::Answered { round: resume.round.clone(), answer };
        match self.publish(&resume.reply_to, &message).await {
            Ok(0) => tracing::warn!("the replica that relayed a round is gone: its answer is lost"),
            Ok(_) => {}
            Err(error) => tracing::warn!("cannot send a relayed round's answer: {}", error.message),
        }
    }

    /// Resolves when the client of the relayed round `round` leaves.
    pub(crate) fn closed(&self, round: &str) -> impl Future<Output = ()> + Send + 'static {
        let (tell, told) = oneshot::channel();
        lock(&self.inner.closing).insert(round.to_string(), tell);
        let forget = Forget(self.inner.clone(), round.to_string());
        async move {
            let _forget = forget;
            if told.await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }

    /// The owner and the state of task `id`, if the store has it.
    async fn task_entry(&self, id: &str) -> Result<Option<(String, String)>, ErrorData> {
        let mut commands = self.inner.commands.clone();
        let (owner, state): (Option<String>, Option<String>) = redis::cmd("HMGET")
            .arg(task_key(id))
            .arg("owner")
            .arg("state")
            .query_async(&mut commands)
            .await
            .map_err(unreachable)?;
        Ok(owner.zip(state))
    }

    /// Whether replica `name`'s heartbeat is current.
    async fn alive(&self, name: &str) -> Result<bool, ErrorData> {
        let mut commands = self.inner.commands.clone();
        commands.exists(heartbeat_key(name)).await.map_err(unreachable)
    }

    /// Publishes `message` on replica `to`'s channel: how many listened.
    async fn publish(&self, to: &str, message: &Message) -> Result<usize, ErrorData> {
        let text = serde_json::to_string(message).unwrap_or_default();
        let mut commands = self.inner.commands.clone();
        commands.publish(channel(to), text).await.map_err(unreachable)
    }

    /// Renews this replica's heartbeat.
    async fn beat(&self) -> redis::RedisResult<()> {
        let mut commands = self.inner.commands.clone();
        let ttl = u64::try_from(HEARTBEAT_TTL.as_millis()).unwrap_or(u64::MAX);
        commands.pset_ex(heartbeat_key(&self.inner.replica), 1, ttl).await
    }
}

impl Answer {
    fn into_response(self) -> Result<CallToolResponse, ErrorData> {
        match self {
            Answer::Complete(result) => Ok(CallToolResponse::Complete(result)),
            Answer::InputRequired(asks) => Ok(CallToolResponse::InputRequired(asks)),
            Answer::Task(task) => Ok(CallToolResponse::Task(task)),
            Answer::Error(error) => Err(error),
        }
    }
}

/// Takes a round out of the maps when dropped (its answer came, or nobody waits
/// for it any more).
struct Forget(Arc<Inner>, String);

impl Drop for Forget {
    fn drop(&mut self) {
        lock(&self.0.relayed).remove(&self.1);
        lock(&self.0.closing).remove(&self.1);
    }
}

/// Renews the heartbeat until the store is dropped; says once when it cannot.
async fn keep_beating(store: Weak<Inner>, stop: CancellationToken) {
    let mut failing = false;
    loop {
        tokio::select! {
            () = tokio::time::sleep(HEARTBEAT_EVERY) => {}
            () = stop.cancelled() => return,
        }
        let Some(inner) = store.upgrade() else { return };
        match (Store { inner }).beat().await {
            Ok(()) if failing => {
                tracing::info!("the shared store answers again");
                failing = false;
            }
            Ok(()) => {}
            Err(error) if !failing => {
                tracing::warn!("cannot renew this replica's heartbeat in the shared store: {error}");
                failing = true;
            }
            Err(_) => {}
        }
    }
}

/// Hands what arrives on this replica's channel to where it goes, subscribing
/// again (each second) when the connection is lost.
async fn listen(store: Weak<Inner>, client: redis::Client, mut messages: PubSubStream, stop: CancellationToken) {
    loop {
        loop {
            let message = tokio::select! {
                message = messages.next() => message,
                () = stop.cancelled() => return,
            };
            let Some(message) = message else { break };
            let Some(inner) = store.upgrade() else { return };
            deliver(&inner, message.get_payload_bytes());
        }
        tracing::warn!("lost the shared store's pub/sub connection: subscribing again");
        messages = loop {
            tokio::select! {
                () = tokio::time::sleep(HEARTBEAT_EVERY) => {}
                () = stop.cancelled() => return,
            }
            let Some(inner) = store.upgrade() else { return };
            match subscribe(&client, &channel(&inner.replica)).await {
                Ok(messages) => break messages,
                Err(error) => tracing::debug!("cannot subscribe to the shared store yet: {error}"),
            }
        };
    }
}

/// Acts on one message from another replica.
fn deliver(inner: &Inner, payload: &[u8]) {
    let message: Message = match serde_json::from_slice(payload) {
        Ok(message) => message,
        Err(error) => return tracing::warn!("a message from another replica this one cannot read: {error}"),
    };
    let asked = match message {
        Message::Update { task, responses } => Asked::Update { task, responses },
        Message::Cancel { task } => Asked::Cancel { task },
        Message::Resume { state, responses, patience_ms, round, reply_to } => {
            let patience = patience_ms.map(Duration::from_millis);
            Asked::Resume(Resume { state, responses, patience, round, reply_to })
        }
        Message::Closed { round } => {
            if let Some(tell) = lock(&inner.closing).remove(&round) {
                let _ = tell.send(());
            }
            return;
        }
        Message::Answered { round, answer } => {
            if let Some(waiting) = lock(&inner.relayed).remove(&round) {
                let _ = waiting.send(answer);
            }
            return;
        }
    };
    let _ = inner.asked.send(asked);
}

async fn ping(client: &redis::Client) -> redis::RedisResult<()> {
    let mut connection = client.get_multiplexed_async_connection().await?;
    redis::cmd("PING").query_async(&mut connection).await
}

async fn subscribe(client: &redis::Client, channel: &str) -> redis::RedisResult<PubSubStream> {
    let mut pubsub = tokio::time::timeout(STORE_TIMEOUT, client.get_async_pubsub())
        .await
        .map_err(|_| redis::RedisError::from(std::io::Error::from(std::io::ErrorKind::TimedOut)))??;
    pubsub.subscribe(channel).await?;
    Ok(pubsub.into_on_message())
}

fn replica_gone() -> ErrorData {
    ErrorData::internal_error("the server replica running this call stopped before it ended: call the tool again", None)
}

fn unreachable(error: redis::RedisError) -> ErrorData {
    ErrorData::internal_error(format!("the shared store did not answer: {error}"), None)
}

fn task_key(id: &str) -> String {
    format!("toolhost:task:{id}")
}

fn heartbeat_key(replica: &str) -> String {
    format!("toolhost:replica:{replica}")
}

fn channel(replica: &str) -> String {
    format!("toolhost:replica:{replica}:inbox")
}

/// `url` with its password, if any, replaced by `***`, to be shown.
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return "(an address that does not read)".into() };
    match rest.rsplit_once('@') {
        Some((_, host)) => format!("{scheme}://***@{host}"),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stores_address_is_shown_without_its_password() {
        assert_eq!(without_password("redis://:s3cret@store:6379/0"), "redis://***@store:6379/0");
        assert_eq!(without_password("redis://user:s3cret@store"), "redis://***@store");
        assert_eq!(without_password("redis://store:6379"), "redis://store:6379");
        assert!(!without_password("s3cret").contains("s3cret"));
    }

    #[test]
    fn a_rounds_answer_crosses_between_replicas_unchanged() {
        let asks: InputRequiredResult = serde_json::from_value(serde_json::json!({
            "resultType": "input_required",
            "inputRequests": {"elicit": {"method": "elicitation/create", "params": {"message": "Sure?", "requestedSchema": {"type": "object", "properties": {}}}}},
            "requestState": "a.b"
        }))
        .expect("an InputRequiredResult");
        let message = Message::Answered { round: "r".into(), answer: Answer::InputRequired(asks.clone()) };
        let text = serde_json::to_string(&message).expect("JSON");
        let Message::Answered { answer: Answer::InputRequired(back), .. } = serde_json::from_str(&text).expect("read")
        else {
            panic!("not an answer: {text}");
        };
        assert_eq!(serde_json::to_value(back).expect("JSON"), serde_json::to_value(asks).expect("JSON"));
    }
}
