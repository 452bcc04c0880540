//! The processes tests start (the `toolhost` command, nginx, docker-registry, MCP
//! servers under node): each the leader of a process group of its own, so that
//! ending it ends everything it started too, whether the test passed, failed or
//! panicked. `scripts/test.sh` fails when anything is left running after the tests.

use std::ops::{Deref, DerefMut};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process, kill_process_group};

/// A child process leading a process group of its own. Dropping it kills the whole
/// group (nginx's workers, the node an `npx` started, …) and reaps the child.
pub(crate) struct Process(Child);

impl Process {
    /// Spawns `command` as the leader of a new process group.
    pub(crate) fn spawn(command: &mut Command) -> std::io::Result<Process> {
        command.process_group(0).spawn().map(Process)
    }

    /// Sends `signal` to the child alone, as an orchestrator asking it to stop would
    /// (SIGTERM); what it started is its to stop.
    pub(crate) fn signal(&self, signal: Signal) {
        if let Some(pid) = self.pid() {
            kill_process(pid, signal).expect("the child can be signalled");
        }
    }

    /// Kills the child and everything in its group at once (as a crash would), and
    /// reaps the child.
    pub(crate) fn kill(&mut self) {
        if let Some(pid) = self.pid() {
            // Fails only when the group is gone already, which is what was wanted.
            let _ = kill_process_group(pid, Signal::KILL);
        }
        let _ = self.0.wait();
    }

    fn pid(&self) -> Option<Pid> {
        Pid::from_raw(i32::try_from(self.0.id()).ok()?)
    }
}

impl Deref for Process {
    type Target = Child;

    fn deref(&self) -> &Child {
        &self.0
    }
}

impl DerefMut for Process {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A loopback port nothing listens on now.
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port()
}

/// Starts the server `command(port)` makes on a free loopback port and waits until it
/// listens. A port is free only when it is chosen: another test's connection may take
/// it before the server binds it, and the server then ends at once. So a server that
/// ends before it listens, or does not listen within 60 s (a Node server starting
/// while every test runs on two cores took more than 10), is started again on another
/// port, three tries in all. A failure shows what the server wrote.
pub(crate) fn serve_on_free_port(what: &str, command: impl Fn(u16) -> Command) -> (Process, u16) {
    let mut said = String::new();
    for _ in 0..3 {
        let port = free_port();
        let log = tempfile::tempfile().expect("a file for the server's errors");
        let mut server = Process::spawn(command(port).stderr(log.try_clone().expect("the file again")))
            .unwrap_or_else(|e| panic!("{what} does not start: {e}"));
        match wait_until_listening(&mut server, port) {
            Ok(()) => return (server, port),
            Err(ended) => said = format!("{ended}; it wrote:\n{}", tail(log)),
        }
    }
    panic!("{what} did not listen on a free port in three tries: {said}")
}

/// Waits until the server listens on loopback `port` (`Ok`), or ends or takes too
/// long (`Err` saying which).
fn wait_until_listening(server: &mut Process, port: u16) -> Result<(), String> {
    for _ in 0..1200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(());
        }
        if let Some(status) = server.try_wait().expect("the server's state") {
            return Err(format!("it ended ({status}) before it listened on port {port}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!("it did not listen on port {port} within 60 s"))
}

/// The last 2,000 bytes of what was written to `file`.
fn tail(mut file: std::fs::File) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let mut text = String::new();
    let _ = file.seek(SeekFrom::Start(0)).and_then(|_| file.read_to_string(&mut text));
    let start = text.len().saturating_sub(2000);
    text[text.ceil_char_boundary(start)..].to_string()
}
