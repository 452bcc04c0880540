//! SSE polling in the session revisions (SEP-1699): a call's event stream is closed
//! after a while, and what the call sends after that waits for its client to come
//! back with `Last-Event-ID`, so that no proxy has to hold a response open for the
//! whole of a long call.
//!
//! rmcp's [`LocalSessionManager`] keeps the sessions; [`Sessions`] stands in front of
//! it and relays each call's stream. rmcp can close a call's stream itself, but then
//! forgets the call's answer the moment it is sent, so a client that comes back after
//! the call ended would find nothing: the relay keeps the events until they are read.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::future::Either;
use futures::{Stream, StreamExt};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{RestoreOutcome, ServerSseMessage, SessionId, SessionManager};
use tokio::sync::{Notify, mpsc};
use tokio_stream::wrappers::ReceiverStream;

/// The events of one call kept for its client to resume after any of them; past this
/// the oldest are dropped (a client that far behind misses them, and is told so in
/// the server's log).
const KEPT_EVENTS: usize = 1024;
/// How long the events of a call that ended while its client was away wait for it.
const KEPT_FOR: Duration = Duration::from_secs(300);
/// Calls whose events are kept at once; past this, those that ended longest ago go.
const KEPT_CALLS: usize = 10_000;
/// Events on their way to a client's stream.
const CHANNEL: usize = 64;

/// The sessions of the older revisions, each call's stream closed after `poll_after`.
pub(crate) struct Sessions {
    inner: Arc<LocalSessionManager>,
    /// How long a call's stream stays open; `None`: until the call's answer.
    poll_after: Option<Duration>,
    /// The calls being relayed, or ended and waiting for their client.
    calls: Arc<Calls>,
}

/// Relayed calls by session and rmcp's number for the call's HTTP request.
#[derive(Default)]
struct Calls(Mutex<HashMap<(SessionId, u64), Arc<Call>>>);

impl Calls {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(SessionId, u64), Arc<Call>>> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Forgets the calls that ended longer than [`KEPT_FOR`] ago or were read after
    /// they ended, and, past [`KEPT_CALLS`], those that ended first.
    fn forget_ended(&self) {
        let mut calls = self.lock();
        calls.retain(|_, call| match call.state.try_lock() {
            Ok(state) => state.ended.is_none_or(|ended| state.awaited && ended.elapsed() < KEPT_FOR),
            Err(_) => true,
        });
        if calls.len() > KEPT_CALLS {
            let mut ended: Vec<_> = calls
                .iter()
                .filter_map(|(key, call)| Some((call.state.try_lock().ok()?.ended?, key.clone())))
                .collect();
            ended.sort();
            for (_, key) in ended.into_iter().take(calls.len() - KEPT_CALLS) {
                calls.remove(&key);
            }
        }
    }
}

impl Sessions {
    pub(crate) fn new(inner: Arc<LocalSessionManager>, poll_after: Option<Duration>) -> Sessions {
        Sessions { inner, poll_after, calls: Arc::default() }
    }

    /// The call that `last_event_id` (rmcp's `index/request`) names in session `id`,
    /// and the index of the last event its client had.
    fn call_of(&self, id: &SessionId, last_event_id: &str) -> Option<(Arc<Call>, usize)> {
        let (index, request) = parse_event_id(last_event_id)?;
        Some((self.calls.lock().get(&(id.clone(), request))?.clone(), index))
    }
}

/// rmcp's event id of a call's stream, `index/request`, as numbers.
fn parse_event_id(event_id: &str) -> Option<(usize, u64)> {
    let (index, request) = event_id.split_once('/')?;
    Some((index.parse().ok()?, request.parse().ok()?))
}

/// One call's stream as relayed: what it sent, and where its client reads it now.
struct Call {
    state: tokio::sync::Mutex<Relayed>,
    /// Told when a client comes back, so that its stream is closed in its turn.
    resumed: Notify,
}

/// What a relayed call has sent and to whom.
#[derive(Default)]
struct Relayed {
    /// Its events (the newest [`KEPT_EVENTS`]), with their indexes.
    events: VecDeque<(usize, ServerSseMessage)>,
    /// The client's open stream, if it has one.
    client: Option<mpsc::Sender<ServerSseMessage>>,
    /// When the open stream is closed.
    closes_at: Option<tokio::time::Instant>,
    /// When the call's stream ended (after its answer), if it has.
    ended: Option<Instant>,
    /// Whether the client was away when the call ended: then the events wait for it.
    awaited: bool,
}

impl Relayed {
    /// Opens a new stream to the client, to be closed after `poll_after`.
    fn open(&mut self, poll_after: Duration) -> ReceiverStream<ServerSseMessage> {
        let (client, events) = mpsc::channel(CHANNEL);
        self.client = Some(client);
        self.closes_at = Some(tokio::time::Instant::now() + poll_after);
        ReceiverStream::new(events)
    }

    /// Keeps `event` (of index `index`) for a client to resume after, and sends it on.
    async fn keep_and_send(&mut self, index: usize, event: ServerSseMessage) {
        if self.events.len() == KEPT_EVENTS {
            self.events.pop_front();
        }
        self.events.push_back((index, event.clone()));
        self.send(event).await;
    }

    /// Sends `event` to the client, if it has a stream open.
    async fn send(&mut self, event: ServerSseMessage) {
        if let Some(client) = &self.client
            && client.send(event).await.is_err()
        {
            self.close();
        }
    }

    /// Closes the client's stream: it comes back for the rest.
    fn close(&mut self) {
        self.client = None;
        self.closes_at = None;
    }

    /// The kept events after `index`, saying in the log when some were dropped.
    fn after(&self, index: usize) -> Vec<ServerSseMessage> {
        if let Some((first, _)) = self.events.front()
            && *first > index + 1
        {
            tracing::warn!(
                "a client resumed a call's stream after event {index}, but the events up to {first} were dropped"
            );
        }
        self.events.iter().filter(|(i, _)| *i > index).map(|(_, event)| event.clone()).collect()
    }
}

impl SessionManager for Sessions {
    type Error = <LocalSessionManager as SessionManager>::Error;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.inner.create_session().await
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<rmcp::model::ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.calls.lock().retain(|(session, _), _| session != id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let stream = self.inner.create_stream(id, message).await?;
        let Some(poll_after) = self.poll_after else { return Ok(Either::Left(stream)) };
        self.calls.forget_ended();
        let mut relayed = Relayed::default();
        let events = relayed.open(poll_after);
        let call = Arc::new(Call { state: tokio::sync::Mutex::new(relayed), resumed: Notify::new() });
        tokio::spawn(relay(stream, call, id.clone(), self.calls.clone()));
        Ok(Either::Right(events))
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let (Some(poll_after), Some((call, index))) = (self.poll_after, self.call_of(id, &last_event_id)) else {
            return Ok(Either::Right(self.inner.resume(id, last_event_id).await?));
        };
        tracing::debug!(%id, last_event_id, "a client resumes a call's event stream");
        let mut state = call.state.lock().await;
        let replay = futures::stream::iter(state.after(index));
        if state.ended.is_some() {
            state.awaited = false;
            return Ok(Either::Left(Either::Left(replay)));
        }
        let events = state.open(poll_after);
        call.resumed.notify_one();
        Ok(Either::Left(Either::Right(replay.chain(events))))
    }

    async fn restore_session(&self, id: SessionId) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.inner.restore_session(id).await
    }
}

/// Relays a call's events from rmcp to its client's stream, closing the stream when
/// its time is up (once the client has an event id to come back with), until the
/// call's answer; then keeps the events if the client was away.
async fn relay(stream: impl Stream<Item = ServerSseMessage>, call: Arc<Call>, session: SessionId, calls: Arc<Calls>) {
    let mut stream = std::pin::pin!(stream);
    let mut key = None;
    loop {
        // A stream is closed only once its client has an event id to come back with.
        let closes_at = call.state.lock().await.closes_at.filter(|_| key.is_some());
        let closing = async {
            match closes_at {
                Some(at) => tokio::time::sleep_until(at).await,
                _ => std::future::pending().await,
            }
        };
        let event = tokio::select! {
            event = stream.next() => event,
            () = closing => {
                call.state.lock().await.close();
                tracing::debug!(?key, "closed a call's event stream for its client to resume");
                continue;
            }
            () = call.resumed.notified() => continue,
        };
        let Some(event) = event else { break };
        // An event without an id (none is, with rmcp's priming on) cannot be resumed
        // after: it goes to the client as it comes.
        let Some((index, request)) = event.event_id.as_deref().and_then(parse_event_id) else {
            call.state.lock().await.send(event).await;
            continue;
        };
        if key.is_none() {
            let named = (session.clone(), request);
            calls.lock().insert(named.clone(), call.clone());
            key = Some(named);
        }
        call.state.lock().await.keep_and_send(index, event).await;
    }
    let mut state = call.state.lock().await;
    state.ended = Some(Instant::now());
    state.awaited = state.client.is_none();
    state.close();
    let waits = state.awaited;
    drop(state);
    if !waits && let Some(key) = key {
        calls.lock().remove(&key);
    }
}
