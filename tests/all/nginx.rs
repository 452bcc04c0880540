//! Several replicas behind a real load balancer: Debian's nginx with
//! `deploy/nginx/toolhost.conf`, three `toolhost serve --http` replicas on loopback,
//! session clients kept on their replica, and thousands of stateless calls from many
//! clients while one replica is stopped (SIGTERM) and another killed (SIGKILL): every
//! call gets exactly one answer, a right result or a clear error, never a hang.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::ProtocolVersion;
use serde_json::json;

use super::http::{Server, call, client, raw};
use crate::common;
use crate::process::{Process, serve_on_free_port};

/// nginx in the foreground, with its files in a folder of its own.
pub(crate) struct Nginx {
    /// nginx's master process, whose drop ends it and its workers.
    _master: Process,
    pub(crate) port: u16,
    _folder: tempfile::TempDir,
}

/// The line of the deploy configuration that keeps a client on one replica.
const AFFINITY: &str = "    hash $toolhost_affinity consistent;\n";

impl Nginx {
    /// nginx with the deploy configuration, sending to the replicas on `ports`.
    fn start(ports: &[u16]) -> Nginx {
        Nginx::start_with(ports, true)
    }

    /// nginx with the deploy configuration but no affinity: each request goes to the
    /// next replica in turn.
    pub(crate) fn round_robin(ports: &[u16]) -> Nginx {
        Nginx::start_with(ports, false)
    }

    fn start_with(ports: &[u16], affinity: bool) -> Nginx {
        let binary = ["/usr/sbin/nginx", "/usr/local/sbin/nginx"]
            .into_iter()
            .map(PathBuf::from)
            .find(|path| path.is_file())
            .expect("nginx is not installed: `apt-get install nginx-light` (scripts/test.sh does it when it can)");
        let folder = tempfile::tempdir().expect("temporary folder");
        let site = std::fs::read_to_string(common::root().join("deploy/nginx/toolhost.conf")).expect("the config");
        assert!(site.contains("    listen 8080;\n") && site.contains("include /etc/nginx/toolhost/replicas.conf;"));
        assert!(site.contains(AFFINITY), "the deploy file's affinity line changed");
        let site = if affinity { site } else { site.replace(AFFINITY, "") };
        let at = |name: &str| folder.path().join(name).display().to_string();
        let replicas: String =
            ports.iter().map(|port| format!("server 127.0.0.1:{port} max_fails=1 fail_timeout=5s;\n")).collect();
        std::fs::write(folder.path().join("replicas.conf"), replicas).expect("write");
        std::fs::write(folder.path().join("nginx.conf"), main_config(folder.path())).expect("write");
        let (master, port) = serve_on_free_port("nginx", |port| {
            let site = site
                .replace("    listen 8080;\n", &format!("    listen 127.0.0.1:{port};\n"))
                .replace("/etc/nginx/toolhost/replicas.conf", &at("replicas.conf"));
            std::fs::write(folder.path().join("toolhost.conf"), site).expect("write");
            let mut command = Command::new(&binary);
            command.arg("-p").arg(folder.path()).arg("-c").arg(folder.path().join("nginx.conf"));
            command.args(["-e", &at("error.log")]).stdout(Stdio::null());
            command
        });
        Nginx { _master: master, port, _folder: folder }
    }
}

/// nginx's own settings around the deploy file: in the foreground, all its files here.
fn main_config(folder: &Path) -> String {
    let at = |name: &str| folder.join(name).display().to_string();
    format!(
        "daemon off;\nworker_processes 1;\npid {pid};\nuser root;\nevents {{ worker_connections 1024; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {temp}/body;\n  proxy_temp_path {temp}/proxy;\n  \
         fastcgi_temp_path {temp}/fastcgi;\n  uwsgi_temp_path {temp}/uwsgi;\n  scgi_temp_path {temp}/scgi;\n  \
         include {site};\n}}\n",
        pid = at("nginx.pid"),
        temp = folder.display(),
        site = at("toolhost.conf"),
    )
}

/// Waits (a bounded while) until nginx passes `/health` through.
pub(crate) fn wait_until_serving(port: u16) {
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
            && raw(port, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").status == 200
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("nginx did not serve /health within 10 s");
}

/// What became of each call.
#[derive(Default)]
struct Tally {
    right: usize,
    wrong: Vec<String>,
    errors: BTreeMap<String, usize>,
}

const CLIENTS: usize = 16;
const CALLS_EACH: usize = 200;

#[test]
fn three_replicas_behind_nginx_answer_every_call_while_two_of_them_stop() {
    let folder = tempfile::tempdir().expect("temporary folder");
    std::fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    let mut replicas: Vec<Server> = (0..3).map(|_| Server::start(folder.path(), &[])).collect();
    replicas.iter().for_each(Server::wait_until_ready);
    let nginx = Nginx::start(&replicas.iter().map(|r| r.port).collect::<Vec<_>>());
    wait_until_serving(nginx.port);
    let url = format!("http://127.0.0.1:{}/mcp", nginx.port);
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");

    // Sessions of the older revisions stay on the replica that made them.
    runtime.block_on(async {
        for _ in 0..2 {
            let session = client(&url, None, Some(ProtocolVersion::V_2025_11_25)).await;
            for i in 0..50 {
                let text = format!("session call {i}");
                let echoed = session.call_tool(call("echo", json!({"text": text}))).await.expect("a session call");
                assert_eq!(echoed.structured_content, Some(json!({"result": text})));
            }
            session.cancel().await.expect("the session closes");
        }
    });

    let progress = Arc::new(Progress::default());
    let total = CLIENTS * CALLS_EACH;
    let tally = runtime.block_on(async {
        let callers: Vec<_> =
            (0..CLIENTS).map(|c| tokio::spawn(make_calls(url.clone(), c, progress.clone()))).collect();
        // A third of the way: a graceful stop; two thirds: a crash.
        while progress.done.load(Ordering::SeqCst) < total / 3 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // Marked first: an error the stop causes is counted after it.
        progress.stopped.store(1, Ordering::SeqCst);
        replicas[0].terminate();
        while progress.done.load(Ordering::SeqCst) < 2 * total / 3 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        progress.stopped.store(2, Ordering::SeqCst);
        replicas[1].kill();
        let mut tally = Tally::default();
        for caller in callers {
            let one = caller.await.expect("a calling task");
            tally.right += one.right;
            tally.wrong.extend(one.wrong);
            for (kind, count) in one.errors {
                *tally.errors.entry(kind).or_default() += count;
            }
        }
        tally
    });
    let errors: usize = tally.errors.values().sum();
    println!(
        "{total} calls from {CLIENTS} clients: {} answered right, {errors} errors {:?}",
        tally.right, tally.errors
    );
    assert!(tally.wrong.is_empty(), "wrong results: {:?}", tally.wrong);
    assert_eq!(tally.right + errors, total, "every call has exactly one answer");
    // Only calls in flight on the killed replica may fail: the graceful stop loses none.
    assert!(errors <= CLIENTS, "{errors} calls failed: {:?}", tally.errors);
    assert!(
        tally.errors.keys().all(|kind| kind.starts_with(AFTER[2])),
        "calls failed before the crash: {:?}",
        tally.errors
    );
    assert_eq!(replicas[0].exit_code(), Some(0), "the replica stopped with SIGTERM did not stop cleanly");
}

/// How far the run is: calls answered, replicas stopped.
#[derive(Default)]
struct Progress {
    done: AtomicUsize,
    stopped: AtomicUsize,
}

/// An error is counted by when it came, as `stopped` says.
const AFTER: [&str; 3] = ["before any stop", "after the SIGTERM", "after the SIGKILL"];

/// One client's calls, each with a text of its own, each given 30 s.
async fn make_calls(url: String, client_number: usize, progress: Arc<Progress>) -> Tally {
    let mut tally = Tally::default();
    let mut session = client(&url, None, None).await;
    for i in 0..CALLS_EACH {
        let text = format!("client {client_number} call {i}");
        let answer =
            tokio::time::timeout(Duration::from_secs(30), session.call_tool(call("echo", json!({"text": text}))))
                .await
                .unwrap_or_else(|_| panic!("call {i} of client {client_number} hung"));
        match answer {
            Ok(result) if result.structured_content == Some(json!({"result": text})) => tally.right += 1,
            Ok(result) => tally.wrong.push(format!("{text}: {result:?}")),
            Err(error) => {
                let kind = format!("{}: {}", AFTER[progress.stopped.load(Ordering::SeqCst)], innermost(&error));
                *tally.errors.entry(kind).or_default() += 1;
                // A failed call may have broken this client's connection: start afresh.
                let _ = session.cancel().await;
                session = client(&url, None, None).await;
            }
        }
        progress.done.fetch_add(1, Ordering::SeqCst);
    }
    let _ = session.cancel().await;
    tally
}

/// The message of an error's deepest cause (for a load balancer's answer: `HTTP 502`).
fn innermost(error: &dyn std::error::Error) -> String {
    let mut deepest = error;
    while let Some(cause) = deepest.source() {
        deepest = cause;
    }
    deepest.to_string()
}
