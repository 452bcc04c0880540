//! Replicas sharing a store: three `toolhost serve --http --store redis://…` behind
//! Debian's nginx sending each request to the next replica (no affinity), with
//! Debian's redis-server between them, and rmcp's client in the stateless revision.
//! A call whose tool asks a question is answered by a retry that reaches another
//! replica than the one running it; a task is polled, answered and cancelled through
//! replicas other than its own; and a task whose replica is killed is answered
//! failed, saying why, instead of unknown. And the same store over TLS, its
//! certificate signed by a private authority, asking for client certificates.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use rmcp::model::{CancelTaskParams, GetTaskParams, TaskPayload, TaskStatus, UpdateTaskParams};
use serde_json::json;

use crate::common;
use crate::http::{Server, call};
use crate::nginx::{Nginx, wait_until_serving};
use crate::process::{Process, free_port, serve_on_free_port};
use crate::tasks::{connect, is_terminal, poll_until, result_text, takes_tasks, task_of};

/// Debian's redis-server on a loopback port, with a password, keeping nothing on disk.
struct Redis {
    _server: Process,
    port: u16,
    _folder: tempfile::TempDir,
}

impl Redis {
    fn start() -> Redis {
        Redis::serve(|port, command| {
            command.args(["--port", &port.to_string()]);
        })
    }

    /// Over TLS only, with the certificates of `pki`, asking clients for theirs (as
    /// Redis does unless told not to).
    fn start_tls(pki: &Pki) -> Redis {
        Redis::serve(|port, command| {
            command.args(["--port", "0", "--tls-port", &port.to_string(), "--tls-auth-clients", "yes"]);
            command.arg("--tls-cert-file").arg(pki.file("server.pem"));
            command.arg("--tls-key-file").arg(pki.file("server.key"));
            command.arg("--tls-ca-cert-file").arg(pki.file("ca.pem"));
        })
    }

    fn serve(listen: impl Fn(u16, &mut Command)) -> Redis {
        let binary = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]
            .into_iter()
            .map(PathBuf::from)
            .find(|path| path.is_file())
            .expect(
                "redis-server is not installed: `apt-get install redis-server` (scripts/test.sh does it when it can)",
            );
        let folder = tempfile::tempdir().expect("temporary folder");
        let (server, port) = serve_on_free_port("redis-server", |port| {
            let mut command = Command::new(&binary);
            command.args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]);
            listen(port, &mut command);
            command.args(["--requirepass", PASSWORD]).arg("--dir").arg(folder.path()).stdout(Stdio::null());
            command
        });
        Redis { _server: server, port, _folder: folder }
    }
}

/// A private authority, and the certificates it signed for the store (127.0.0.1)
/// and for its clients: PEM files in a folder.
struct Pki {
    folder: tempfile::TempDir,
}

impl Pki {
    fn new() -> Pki {
        use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
        let folder = tempfile::tempdir().expect("temporary folder");
        let write = |name: &str, text: String| std::fs::write(folder.path().join(name), text).expect("write");
        let ca_key = KeyPair::generate().expect("a key");
        let mut ca = CertificateParams::new(Vec::<String>::new()).expect("parameters");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name.push(DnType::CommonName, "toolhost test authority");
        write("ca.pem", ca.self_signed(&ca_key).expect("the authority").pem());
        let issuer = Issuer::new(ca, ca_key);
        for (name, names) in [("server", vec!["127.0.0.1".to_string()]), ("client", vec!["replica".to_string()])] {
            let key = KeyPair::generate().expect("a key");
            let params = CertificateParams::new(names).expect("parameters");
            write(&format!("{name}.pem"), params.signed_by(&key, &issuer).expect("signed").pem());
            write(&format!("{name}.key"), key.serialize_pem());
        }
        Pki { folder }
    }

    fn file(&self, name: &str) -> String {
        self.folder.path().join(name).to_string_lossy().into_owned()
    }
}

/// The test store's password.
const PASSWORD: &str = "replicas-share-this";

#[test]
fn replicas_sharing_a_store_answer_every_request_of_the_stateless_revision_without_affinity() {
    let redis = Redis::start();
    let store = format!("redis://:{PASSWORD}@127.0.0.1:{}", redis.port);
    let folder = tempfile::tempdir().expect("a folder");
    std::fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    let options = ["--tasks-after-ms", "300", "--store", &store];
    let (mut replicas, _nginx, url) = replicas_behind_nginx(folder.path(), &options, 3);
    runtime().block_on(async {
        questions_in_rounds(&url).await;
        tasks_through_other_replicas(&url).await;
        let first = replicas[0].url();
        a_task_whose_replica_dies_fails(&url, &first, || replicas[0].kill()).await;
    });
}

/// A question in rounds: the retry carrying the answer reaches the next replica,
/// which hands it to the one running the call.
async fn questions_in_rounds(url: &str) {
    let client = connect(url, json!({"elicitation": {"form": {}}})).await;
    for steps in 1..=3 {
        let answer = client.call_tool(call("work", json!({"steps": steps, "pause_ms": 20, "ask": true}))).await;
        let answer = answer.expect("tools/call across replicas");
        let text = serde_json::to_value(&answer.content[0]).expect("JSON")["text"].clone();
        assert_eq!(text, json!((steps + 1).to_string()), "accepted, the tool counts one more: {answer:?}");
    }
    let _ = client.cancel().await;
}

/// Tasks polled, answered and cancelled through every replica.
async fn tasks_through_other_replicas(url: &str) {
    let client = connect(url, takes_tasks()).await;
    // Its progress and its result.
    let task_id = task_of(&client, call("work", json!({"steps": 6, "pause_ms": 150, "ask": false}))).await;
    let mut messages = Vec::new();
    let done = poll_until(&client, &task_id, &mut messages, is_terminal).await;
    assert_eq!(result_text(&done), "6", "{done:?}");
    assert!(messages.iter().any(|m| m.contains("of 6 done: step")), "no progress in {messages:?}");

    // Its question, seen and answered through other replicas.
    let task_id = task_of(&client, call("work", json!({"steps": 3, "pause_ms": 200, "ask": true}))).await;
    let waiting = poll_until(&client, &task_id, &mut messages, |s| s.task.status() == TaskStatus::InputRequired).await;
    let TaskPayload::InputRequired { input_requests } = &waiting.task.payload else { unreachable!() };
    let key = input_requests.keys().next().expect("a question").clone();
    let responses = [(key, json!({"action": "accept", "content": {"ok": true}}))].into_iter().collect();
    client.update_task(UpdateTaskParams::new(&task_id, responses)).await.expect("tasks/update");
    let done = poll_until(&client, &task_id, &mut messages, is_terminal).await;
    assert_eq!(result_text(&done), "4", "{done:?}");

    // A cancel reaching another replica stops the call.
    let task_id = task_of(&client, call("spin", json!({}))).await;
    client.cancel_task(CancelTaskParams::new(&task_id)).await.expect("tasks/cancel");
    let done = poll_until(&client, &task_id, &mut Vec::new(), is_terminal).await;
    assert_eq!(done.task.status(), TaskStatus::Cancelled, "{done:?}");
    // An id no replica has is still unknown.
    let unknown = client.get_task(GetTaskParams::new("no-such-task")).await.expect_err("refused");
    assert!(unknown.to_string().contains("-32602: unknown task"), "{unknown}");
    let _ = client.cancel().await;
}

/// A task started on the replica at `first`, which `kill` kills, is answered failed
/// by the others (through `url`), saying why.
async fn a_task_whose_replica_dies_fails(url: &str, first: &str, kill: impl FnOnce()) {
    let client = connect(url, takes_tasks()).await;
    let task_id = task_of(&connect(first, takes_tasks()).await, call("spin", json!({}))).await;
    let seen = poll_until(&client, &task_id, &mut Vec::new(), |s| s.task.status() == TaskStatus::Working).await;
    assert_eq!(seen.task.task.task_id, task_id);
    kill();
    let mut polls = 0;
    let failed = loop {
        let state = client.get_task(GetTaskParams::new(&task_id)).await.expect("tasks/get on the others");
        if is_terminal(&state) {
            break state;
        }
        polls += 1;
        assert!(polls < 300, "the task of the killed replica still works 30 s later: {state:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let TaskPayload::Failed { error } = &failed.task.payload else { panic!("failed was expected: {failed:?}") };
    assert!(error["message"].as_str().is_some_and(|m| m.contains("stopped before it ended")), "{error:?}");
    let _ = client.cancel().await;
}

#[test]
fn a_store_that_cannot_be_reached_stops_the_server_at_start_without_showing_its_password() {
    let folder = tempfile::tempdir().expect("a folder");
    let nobody = format!("redis://:s3cret-word@127.0.0.1:{}", free_port());
    let nobody_tls = nobody.replace("redis://", "rediss://");
    for (store, says) in [(nobody.as_str(), "cannot connect"), (nobody_tls.as_str(), "cannot connect")] {
        let stderr = serve_failing(folder.path(), store, &[]);
        assert!(stderr.contains("the shared store at redis") && stderr.contains(says), "{store}: {stderr}");
    }
    let stderr = serve_failing(folder.path(), &nobody, &["--store-ca", "/etc/hostname"]);
    assert!(stderr.contains("write it rediss://"), "certificates for a plain address: {stderr}");
}

/// What `toolhost serve --http` wrote when it stopped at start with the store at
/// `store` (the password never among it).
fn serve_failing(folder: &std::path::Path, store: &str, flags: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["serve", "--http", "127.0.0.1:0", "--plugins"])
        .arg(folder)
        .args(flags)
        .env("TOOLHOST_STORE", store)
        .env("TOOLHOST_CACHE_DIR", common::test_cache_dir())
        .output()
        .expect("toolhost runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!output.status.success(), "{store}: {stderr}");
    assert!(!stderr.contains(PASSWORD) && !stderr.contains("s3cret-word"), "{store}: the password shown: {stderr}");
    stderr
}

#[test]
fn replicas_share_a_store_over_tls_signed_by_a_private_authority_showing_client_certificates() {
    let pki = Pki::new();
    let redis = Redis::start_tls(&pki);
    let store = format!("rediss://:{PASSWORD}@127.0.0.1:{}", redis.port);
    let folder = tempfile::tempdir().expect("a folder");
    std::fs::copy(common::test_guest("hostile"), folder.path().join("hostile.wasm")).expect("copy");
    let (ca, cert, key) = (pki.file("ca.pem"), pki.file("client.pem"), pki.file("client.key"));

    // Each missing piece refused at start, saying which flag gives it.
    let stderr = serve_failing(folder.path(), &store, &[]);
    assert!(stderr.contains("UnknownIssuer") && stderr.contains("--store-ca FILE"), "no authority: {stderr}");
    let stderr = serve_failing(folder.path(), &store, &["--store-ca", &ca]);
    assert!(stderr.contains("--store-cert FILE --store-key FILE"), "no client certificate: {stderr}");
    let stderr = serve_failing(folder.path(), &store, &["--store-ca", &ca, "--store-cert", &cert, "--store-key", &ca]);
    assert!(stderr.contains("cannot use the certificates given") && stderr.contains("private key"), "{stderr}");

    let options = ["--tasks-after-ms", "300", "--store", &store, "--store-ca", &ca, "--store-cert", &cert];
    let options = [&options[..], &["--store-key", &key]].concat();
    let (_replicas, _nginx, url) = replicas_behind_nginx(folder.path(), &options, 2);
    runtime().block_on(tasks_through_other_replicas(&url));
}

/// `count` replicas over `folder` with `options`, ready, behind nginx sending each
/// request to the next; and the MCP endpoint through nginx.
fn replicas_behind_nginx(folder: &std::path::Path, options: &[&str], count: usize) -> (Vec<Server>, Nginx, String) {
    let replicas: Vec<Server> = (0..count).map(|_| Server::start(folder, options)).collect();
    replicas.iter().for_each(Server::wait_until_ready);
    let nginx = Nginx::round_robin(&replicas.iter().map(|replica| replica.port).collect::<Vec<_>>());
    wait_until_serving(nginx.port);
    let url = format!("http://127.0.0.1:{}/mcp", nginx.port);
    (replicas, nginx, url)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime")
}
