//! Bounded capture of a guest's stdout and stderr: the guest can always write, the
//! host keeps at most a fixed number of bytes and counts what it dropped.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::AsyncWrite;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamError};

use crate::mutex::lock;

/// How many bytes a guest may hand over in one write; it may always write again.
const WRITE_PERMIT: usize = 64 * 1024;

/// A capture buffer that never refuses a write: bytes past its capacity are dropped.
///
/// `MemoryOutputPipe` from wasmtime-wasi fails the guest's write once full, which
/// makes a chatty guest's `println!` panic; here a chatty guest just loses output.
#[derive(Clone, Debug)]
pub(crate) struct CapturedOutput {
    inner: Arc<Mutex<Buffer>>,
}

#[derive(Debug)]
struct Buffer {
    kept: Vec<u8>,
    capacity: usize,
    dropped: u64,
}

impl CapturedOutput {
    /// A capture that keeps at most `capacity` bytes.
    pub(crate) fn new(capacity: usize) -> CapturedOutput {
        CapturedOutput { inner: Arc::new(Mutex::new(Buffer { kept: Vec::new(), capacity, dropped: 0 })) }
    }

    fn append(&self, bytes: &[u8]) {
        let mut buffer = lock(&self.inner);
        let room = buffer.capacity - buffer.kept.len();
        let taken = bytes.len().min(room);
        buffer.kept.extend_from_slice(&bytes[..taken]);
        buffer.dropped += (bytes.len() - taken) as u64;
    }

    /// What was kept, as text (invalid UTF-8 replaced).
    pub(crate) fn text(&self) -> String {
        let buffer = lock(&self.inner);
        String::from_utf8_lossy(&buffer.kept).into_owned()
    }

    /// How many bytes were written past the capacity and dropped.
    pub(crate) fn dropped(&self) -> u64 {
        lock(&self.inner).dropped
    }
}

impl OutputStream for CapturedOutput {
    fn write(&mut self, bytes: Bytes) -> Result<(), StreamError> {
        self.append(&bytes);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StreamError> {
        Ok(())
    }

    fn check_write(&mut self) -> Result<usize, StreamError> {
        Ok(WRITE_PERMIT)
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for CapturedOutput {
    async fn ready(&mut self) {}
}

impl AsyncWrite for CapturedOutput {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, bytes: &[u8]) -> Poll<std::io::Result<usize>> {
        self.append(bytes);
        Poll::Ready(Ok(bytes.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl IsTerminal for CapturedOutput {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for CapturedOutput {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::CapturedOutput;

    #[test]
    fn keeps_up_to_capacity_and_counts_the_rest() {
        let capture = CapturedOutput::new(4);
        capture.append(b"abc");
        capture.append(b"defg");
        assert_eq!(capture.text(), "abcd");
        assert_eq!(capture.dropped(), 3);
    }
}
