//! Newline-delimited JSON-RPC over a byte stream (stdio, a pipe, a socket), for the
//! MCP server.
//!
//! rmcp's own `AsyncRwTransport` answers a well-formed request it cannot read as MCP
//! (say `"params": [1, 2]`) with an error that carries no `id`, so the client waits
//! for its answer forever (found by the `mcp_stdio` fuzz target). This transport
//! answers such a request with an error carrying its `id`, and is otherwise the same:
//! a line longer than 16 MiB is dropped without being kept, text that is not JSON is
//! ignored (answering it could start an error storm with a peer that echoes), and a
//! read cut off by cancellation resumes where it stopped.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ErrorData, NumberOrString, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest line read: longer ones are dropped unread (as rmcp's default).
const MAX_LINE_BYTES: usize = 16 << 20;

/// JSON-RPC lines in from `reader`, out to `writer`.
pub(crate) struct LineTransport<R, W> {
    reader: BufReader<R>,
    /// The line being read; kept here so that a cancelled read resumes it.
    line: Vec<u8>,
    /// Set while the rest of an overlong line is being skipped.
    skipping: bool,
    /// An answer not yet written (kept here so that a cancelled write is retried).
    pending: Option<ServerJsonRpcMessage>,
    writer: Arc<Mutex<W>>,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// A transport over `reader` and `writer`.
    pub(crate) fn new(reader: R, writer: W) -> Self {
        let writer = Arc::new(Mutex::new(writer));
        LineTransport { reader: BufReader::new(reader), line: Vec::new(), skipping: false, pending: None, writer }
    }

    /// Reads the next whole line into `self.line` (without its newline); `false` at
    /// the end of the stream or on a read error.
    async fn next_line(&mut self) -> bool {
        loop {
            let available = match self.reader.fill_buf().await {
                Ok([]) => return false,
                Ok(available) => available,
                Err(error) => {
                    tracing::warn!("MCP: cannot read from the client: {error}");
                    return false;
                }
            };
            let (chunk, complete) = match available.iter().position(|b| *b == b'\n') {
                Some(end) => (&available[..end], true),
                None => (available, false),
            };
            if !self.skipping && self.line.len() + chunk.len() > MAX_LINE_BYTES {
                tracing::warn!("MCP: dropped a message longer than {MAX_LINE_BYTES} bytes");
                self.line.clear();
                self.skipping = true;
            }
            if !self.skipping {
                self.line.extend_from_slice(chunk);
            }
            let used = chunk.len() + usize::from(complete);
            self.reader.consume(used);
            if complete {
                if !std::mem::take(&mut self.skipping) {
                    return true;
                }
                self.line.clear();
            }
        }
    }

    /// Writes one message as a line.
    async fn write(writer: &Mutex<W>, message: &ServerJsonRpcMessage) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(message).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut writer = writer.lock().await;
        writer.write_all(&line).await?;
        writer.flush().await
    }
}

/// What to do with a line that is not an MCP message: answer it (a request whose
/// `id` can be answered), or let it be.
fn answer_for(line: &[u8], error: &serde_json::Error) -> Option<ServerJsonRpcMessage> {
    let Ok(Value::Object(message)) = serde_json::from_slice::<Value>(line) else {
        tracing::debug!("MCP: ignoring text that is not JSON: {error}");
        return None;
    };
    let id = match message.get("id") {
        Some(Value::String(id)) => NumberOrString::String(id.as_str().into()),
        Some(Value::Number(id)) if id.as_i64().is_some() => NumberOrString::Number(id.as_i64()?),
        // A notification (or a response) that cannot be read is dropped, as rmcp does.
        None if !message.contains_key("error") && !message.contains_key("result") => {
            tracing::debug!("MCP: ignoring a notification it cannot read: {error}");
            return None;
        }
        // An id MCP does not allow (a fraction, null, an object): answered without one.
        _ => return Some(ServerJsonRpcMessage::error(invalid_request(error), None)),
    };
    Some(ServerJsonRpcMessage::error(invalid_request(error), Some(id)))
}

fn invalid_request(error: &serde_json::Error) -> ErrorData {
    ErrorData::invalid_request(format!("Invalid request: not an MCP message ({error})"), None)
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        message: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), std::io::Error>> + Send + 'static {
        let writer = self.writer.clone();
        async move { Self::write(&writer, &message).await }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if let Some(answer) = &self.pending {
                Self::write(&self.writer, answer).await.ok()?;
                self.pending = None;
            }
            if !self.next_line().await {
                return None;
            }
            let text = self.line.strip_suffix(b"\r").unwrap_or(&self.line);
            let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            let parsed = if text.iter().all(u8::is_ascii_whitespace) {
                None
            } else {
                Some(serde_json::from_slice::<ClientJsonRpcMessage>(text).map_err(|error| answer_for(text, &error)))
            };
            self.line.clear();
            match parsed {
                Some(Ok(message)) => return Some(message),
                Some(Err(answer)) => self.pending = answer,
                None => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), std::io::Error> {
        self.writer.lock().await.shutdown().await
    }
}

/// Standard input and output as pipes the async runtime polls itself, when both are
/// pipes (as an MCP client starts its servers). tokio's own `stdin()` and `stdout()`
/// hand every read and every write to a thread of its blocking pool, and each of
/// those hand-offs is a wake-up on another core: on a small virtual machine they cost
/// several times the sandboxed call a request carries. Stdio that is anything else (a
/// file, a terminal) gets `None`, and tokio's. Unix only: tokio's pipes are.
#[cfg(unix)]
pub(crate) fn stdio_pipes() -> Option<(tokio::net::unix::pipe::Receiver, tokio::net::unix::pipe::Sender)> {
    use std::os::fd::AsFd;
    use tokio::net::unix::pipe;
    // Duplicates, so that fds 0 and 1 stay open however these end; the pipes become
    // non-blocking, which is all the peer at the other end can notice.
    let input = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let output = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
    let reader = pipe::Receiver::from_owned_fd(input).ok()?;
    let writer = pipe::Sender::from_owned_fd(output).ok()?;
    Some((reader, writer))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn answer(line: &str) -> Option<Value> {
        let error = serde_json::from_str::<ClientJsonRpcMessage>(line).expect_err("not an MCP message");
        answer_for(line.as_bytes(), &error).map(|message| serde_json::to_value(message).expect("JSON"))
    }

    #[test]
    fn a_request_mcp_cannot_read_is_answered_with_its_id() {
        let reply = answer(r#"{"jsonrpc":"2.0","id":13,"method":"tools/list","params":[1,2]}"#).expect("answered");
        assert_eq!(reply["id"], json!(13));
        assert_eq!(reply["error"]["code"], json!(-32600));
        let reply = answer(r#"{"jsonrpc":"2.0","id":"a","method":5}"#).expect("answered");
        assert_eq!(reply["id"], json!("a"));
        let reply = answer(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#).expect("answered");
        assert_eq!(reply.get("id"), None);
    }

    #[test]
    fn text_that_is_not_json_and_unreadable_notifications_are_let_be() {
        assert_eq!(answer("not json"), None);
        assert_eq!(answer(r#"{"jsonrpc":"2.0","method":5}"#), None);
    }

    #[tokio::test]
    async fn an_overlong_line_is_dropped_and_the_next_one_read() {
        let (mut client, server) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server);
        let mut transport = LineTransport::new(read, write);
        let writing = tokio::spawn(async move {
            let huge = vec![b'x'; MAX_LINE_BYTES + 10];
            client.write_all(&huge).await.expect("write");
            client.write_all(b"\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n").await.expect("write");
            client
        });
        let message = transport.receive().await.expect("the ping after the huge line");
        assert_eq!(serde_json::to_value(message).expect("JSON")["method"], json!("ping"));
        drop(writing.await);
    }
}
