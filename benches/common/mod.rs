//! What the benches that talk to a server over stdio share.

#![allow(dead_code, reason = "each bench uses its own part of this module")]

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

/// An MCP server over stdio, spoken to one JSON-RPC line at a time.
pub(crate) struct Served {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

impl Served {
    /// `toolhost serve` with `env` set.
    pub(crate) fn toolhost(env: &[(&str, &PathBuf)]) -> Served {
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolhost"));
        command.arg("serve");
        for (name, value) in env {
            command.env(name, value);
        }
        Served::start(command)
    }

    /// `command`, initialized as an MCP server.
    pub(crate) fn start(mut command: Command) -> Served {
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = command.spawn().expect("the server starts");
        let input = child.stdin.take().expect("piped");
        let output = BufReader::new(child.stdout.take().expect("piped"));
        let mut served = Served { child, input, output, next_id: 0 };
        let client = json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}});
        served.ask("initialize", client);
        served.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        served
    }

    pub(crate) fn send(&mut self, message: &Value) {
        // One write a message, as a client would: the server never sees half a line.
        let line = format!("{message}\n");
        self.input.write_all(line.as_bytes()).expect("the server reads");
    }

    /// Sends a request and returns its answer, skipping notifications.
    pub(crate) fn ask(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.output.read_line(&mut line).expect("the server answers") > 0, "the server quit");
            let message: Value = serde_json::from_str(&line).expect("JSON-RPC");
            if message["id"] == id {
                return message;
            }
        }
    }

    /// The CPU time the server has used, user and system.
    pub(crate) fn cpu_time(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        // After the command's closing parenthesis, utime and stime are the 12th and
        // 13th fields, in clock ticks (100 a second on Linux).
        let fields: Vec<u64> = stat
            .rsplit_once(')')
            .map_or("", |(_, rest)| rest)
            .split_whitespace()
            .map(|f| f.parse().unwrap_or(0))
            .collect();
        Duration::from_millis((fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0)) * 10)
    }

    /// A `/proc/<pid>/status` memory line (`VmRSS:`, `VmHWM:`), in KiB.
    pub(crate) fn memory_kib(&self, key: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        let line = status.lines().find(|l| l.starts_with(key)).unwrap_or_default();
        line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or(0)
    }
}

/// The CPU time process `pid` has used, user and system.
pub(crate) fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // After the command's closing parenthesis, utime and stime are the 12th and 13th
    // fields, in clock ticks (100 a second on Linux).
    let fields: Vec<u64> =
        stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace().map(|f| f.parse().unwrap_or(0)).collect();
    Duration::from_millis((fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0)) * 10)
}

impl Drop for Served {
    fn drop(&mut self) {
        drop(self.child.kill());
        drop(self.child.wait());
    }
}
