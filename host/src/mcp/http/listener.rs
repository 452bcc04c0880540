//! The HTTP/1.1 connections: accepted up to a limit (a full server closes new ones at
//! once, and an accept error never stops it), each served by hyper with a timeout on
//! reading a request's headers (its body is `guard.rs`'s) and on a write a client
//! stopped reading, and closed gracefully on shutdown.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

use super::HttpOptions;
use crate::mcp::ServeError;

/// The server's connections.
pub(super) struct Connections {
    graceful: GracefulShutdown,
    live: Arc<AtomicUsize>,
    max: usize,
    io_timeout: Duration,
}

impl Connections {
    pub(super) fn new(options: &HttpOptions) -> Connections {
        Connections {
            graceful: GracefulShutdown::new(),
            live: Arc::new(AtomicUsize::new(0)),
            max: options.max_connections,
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
                Ok((stream, _)) if self.live.load(Ordering::Relaxed) >= self.max => {
                    tracing::debug!("refused a connection: {} are open, the most allowed", self.max);
                    drop(stream);
                }
                Ok((stream, _)) => self.serve(stream, app.clone()),
                // Out of file descriptors, a connection reset before it was taken: wait
                // a moment and go on, rather than spin or stop.
                Err(error) => {
                    tracing::warn!("cannot accept a connection: {error}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }

    /// Serves one connection on a task of its own.
    fn serve(&self, stream: TcpStream, app: Router) {
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(WriteTimeout::new(stream, self.io_timeout));
        let mut builder = http1::Builder::new();
        builder.timer(TokioTimer::new()).header_read_timeout(self.io_timeout).keep_alive(true);
        let connection = self.graceful.watch(builder.serve_connection(io, TowerToHyperService::new(app)));
        let live = self.live.clone();
        live.fetch_add(1, Ordering::Relaxed);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!("an HTTP connection ended: {error}");
            }
            live.fetch_sub(1, Ordering::Relaxed);
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
