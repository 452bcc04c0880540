//! The HTTP/1.1 connections: accepted up to a limit, in all and from each client
//! address, where the connection idle longest makes way for a new one (a full server
//! closes a new one only when every connection is busy; an accept error never stops
//! it), each served by hyper with a timeout on reading a request's headers (its body
//! is `guard.rs`'s) and on a write a client stopped reading, and closed gracefully
//! on shutdown.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

use super::HttpOptions;
use crate::mcp::ServeError;
use crate::mutex::lock;

/// The server's connections.
pub(super) struct Connections {
    graceful: GracefulShutdown,
    open: Arc<Mutex<Open>>,
    io_timeout: Duration,
}

/// The connections open, by number, and the limits on them.
struct Open {
    each: HashMap<u64, Arc<Link>>,
    by_address: HashMap<IpAddr, usize>,
    next: u64,
    max: usize,
    max_per_address: usize,
    /// What `Link::idle_since` counts from.
    epoch: Instant,
}

/// One open connection.
struct Link {
    address: IpAddr,
    /// Its requests being answered, each from its head to the end of its response's body.
    busy: AtomicUsize,
    /// When it last had nothing to answer (or was accepted), in microseconds since the epoch.
    idle_since: AtomicU64,
    /// Told when it must make way for a new connection.
    evicted: Notify,
}

impl Open {
    /// A place for a connection from `address`: made, if need be, by closing the
    /// connection idle longest (of that address, if it is at its own limit); `None`
    /// when every connection that could make way is busy.
    fn admit(&mut self, address: IpAddr) -> Option<(u64, Arc<Link>)> {
        if self.by_address.get(&address).is_some_and(|&n| n >= self.max_per_address)
            && !self.evict_idlest(|link| link.address == address)
        {
            tracing::debug!("refused a connection: {address} has {} open, the most allowed", self.max_per_address);
            return None;
        }
        if self.each.len() >= self.max && !self.evict_idlest(|_| true) {
            tracing::debug!("refused a connection: {} are open and busy, the most allowed", self.max);
            return None;
        }
        let link = Arc::new(Link {
            address,
            busy: AtomicUsize::new(0),
            idle_since: AtomicU64::new(micros_since(self.epoch)),
            evicted: Notify::new(),
        });
        let id = self.next;
        self.next += 1;
        self.each.insert(id, link.clone());
        *self.by_address.entry(address).or_default() += 1;
        Some((id, link))
    }

    /// Closes the connection that has been idle longest among those `eligible`;
    /// whether there was one.
    fn evict_idlest(&mut self, eligible: impl Fn(&Link) -> bool) -> bool {
        let idle = self.each.iter().filter(|(_, link)| link.busy.load(Ordering::SeqCst) == 0 && eligible(link));
        let Some(id) = idle.min_by_key(|(_, link)| link.idle_since.load(Ordering::Relaxed)).map(|(&id, _)| id) else {
            return false;
        };
        if let Some(link) = self.remove(id) {
            link.evicted.notify_one();
        }
        true
    }

    /// Forgets connection `id` (closed, or made to make way).
    fn remove(&mut self, id: u64) -> Option<Arc<Link>> {
        let link = self.each.remove(&id)?;
        if let Some(count) = self.by_address.get_mut(&link.address) {
            *count -= 1;
            if *count == 0 {
                self.by_address.remove(&link.address);
            }
        }
        Some(link)
    }
}

/// Microseconds since `epoch`: when a connection went idle.
fn micros_since(epoch: Instant) -> u64 {
    u64::try_from(epoch.elapsed().as_micros()).unwrap_or(u64::MAX)
}

impl Connections {
    pub(super) fn new(options: &HttpOptions) -> Connections {
        let open = Open {
            each: HashMap::new(),
            by_address: HashMap::new(),
            next: 0,
            max: options.max_connections.max(1),
            max_per_address: options.max_connections_per_address.max(1),
            epoch: Instant::now(),
        };
        Connections {
            graceful: GracefulShutdown::new(),
            open: Arc::new(Mutex::new(open)),
            io_timeout: options.io_timeout,
        }
    }

    /// Accepts and serves connections until `shutdown` resolves, then closes the
    /// listening socket.
    pub(super) async fn accept(
        &self,
        listener: TcpListener,
        app: Router,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), ServeError> {
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                () = &mut shutdown => return Ok(()),
            };
            match accepted {
                Ok((stream, peer)) => {
                    let admitted = lock(&self.open).admit(peer.ip().to_canonical());
                    match admitted {
                        Some((id, link)) => self.serve(stream, app.clone(), id, link),
                        None => drop(stream),
                    }
                }
                // Out of file descriptors, a connection reset before it was taken: wait
                // a moment and go on, rather than spin or stop.
                Err(error) => {
                    tracing::warn!("cannot accept a connection: {error}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }

    /// Serves one connection on a task of its own, until it ends or must make way.
    fn serve(&self, stream: TcpStream, app: Router, id: u64, link: Arc<Link>) {
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(WriteTimeout::new(stream, self.io_timeout));
        let mut builder = http1::Builder::new();
        builder.timer(TokioTimer::new()).header_read_timeout(self.io_timeout).keep_alive(true);
        let epoch = lock(&self.open).epoch;
        let service = Tracked { app, link: link.clone(), epoch };
        let connection = self.graceful.watch(builder.serve_connection(io, service));
        let open = self.open.clone();
        tokio::spawn(async move {
            tokio::select! {
                ended = connection => if let Err(error) = ended {
                    tracing::debug!("an HTTP connection ended: {error}");
                },
                () = link.evicted.notified() => tracing::debug!("closed an idle connection to make way for a new one"),
            }
            lock(&open).remove(id);
        });
    }

    /// Asks every connection to close once its request in flight is answered, and
    /// returns a future that waits for them (up to `deadline` once polled).
    pub(super) fn close(self, deadline: Duration) -> impl Future<Output = ()> {
        let closing = tokio::spawn(self.graceful.shutdown());
        async move {
            if tokio::time::timeout(deadline, closing).await.is_err() {
                tracing::warn!("connections still open after {} ms are cut off", deadline.as_millis());
            }
        }
    }
}

/// The address of a request's client (a request's extension, for its queue).
#[derive(Debug, Clone, Copy)]
pub(super) struct ClientAddress(pub(super) IpAddr);

/// The app, serving one connection: the connection is busy from each request's head
/// until its response's body has been sent (or dropped).
#[derive(Clone)]
struct Tracked {
    app: Router,
    link: Arc<Link>,
    epoch: Instant,
}

impl hyper::service::Service<hyper::Request<hyper::body::Incoming>> for Tracked {
    type Response = axum::response::Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, mut request: hyper::Request<hyper::body::Incoming>) -> Self::Future {
        self.link.busy.fetch_add(1, Ordering::SeqCst);
        request.extensions_mut().insert(ClientAddress(self.link.address));
        let busy = Busy { link: self.link.clone(), epoch: self.epoch };
        let mut app = self.app.clone();
        Box::pin(async move {
            let response = tower_service::Service::call(&mut app, request).await?;
            Ok(response.map(|body| Body::new(BusyBody { body, _busy: busy })))
        })
    }
}

/// A request being answered; its connection idle again once this is dropped.
struct Busy {
    link: Arc<Link>,
    epoch: Instant,
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.link.idle_since.store(micros_since(self.epoch), Ordering::Relaxed);
        self.link.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A response's body, holding its request's [`Busy`] until it is sent or dropped.
struct BusyBody {
    body: Body,
    _busy: Busy,
}

impl http_body::Body for BusyBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// A stream whose writes fail once they have waited `timeout` for a client that does
/// not read: hyper has no write timeout of its own.
struct WriteTimeout<S> {
    inner: S,
    timeout: Duration,
    /// Armed while a write waits.
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<S> WriteTimeout<S> {
    fn new(inner: S, timeout: Duration) -> WriteTimeout<S> {
        WriteTimeout { inner, timeout, deadline: None }
    }

    /// `Pending` while the write may still wait; an error once it has waited too long.
    fn waited<T>(&mut self, polled: Poll<std::io::Result<T>>, cx: &mut Context<'_>) -> Poll<std::io::Result<T>> {
        if polled.is_ready() {
            self.deadline = None;
            return polled;
        }
        let timeout = self.timeout;
        let deadline = self.deadline.get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client stopped reading the response",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteTimeout<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteTimeout<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, bytes: &[u8]) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, bytes);
        self.waited(polled, cx)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let polled = Pin::new(&mut self.inner).poll_flush(cx);
        self.waited(polled, cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buffers: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, buffers);
        self.waited(polled, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
