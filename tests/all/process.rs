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

/// Waits (at most 30 s: a Node server starting while every test runs on two cores
/// took more than 10) until `what` listens on loopback `port`.
pub(crate) fn wait_until_listening(port: u16, what: &str) {
    for _ in 0..600 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{what} did not listen on port {port} within 30 s");
}
