//! Tools from a registry: Debian's docker-registry (the CNCF distribution registry)
//! on loopback, with and without basic auth; components pushed, pulled by tag and by
//! digest, pulled again from the lock file, refused at load once tampered with; a
//! registry that is down, a tag that does not exist, an artifact that is not Wasm;
//! cosign signatures made, checked against the right key and a wrong one, and missing.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use base64::Engine;
use serde_json::json;
use tempfile::TempDir;
use toolhost::oci::{self, Credentials, RegistryError, RegistryOptions, SigningKey, VerifyingKey};
use toolhost::{Host, Provenance};

use crate::common;
use crate::process::{Process, free_port, serve_on_free_port};

/// docker-registry in the foreground on a loopback port, its storage in a folder of its own.
struct Registry {
    /// Kept for its drop, which ends the registry.
    _child: Process,
    port: u16,
    _folder: TempDir,
}

impl Registry {
    /// A registry anyone may pull from and push to.
    fn start() -> Registry {
        Registry::start_with("")
    }

    /// A registry that takes `user` with `password` alone (htpasswd, bcrypt).
    fn with_user(user: &str, password: &str) -> Registry {
        let folder = tempfile::tempdir().expect("temporary folder");
        let output = Command::new("htpasswd")
            .args(["-Bbn", user, password])
            .output()
            .expect("htpasswd is not installed: `apt-get install apache2-utils` (scripts/test.sh does it when it can)");
        let users = folder.path().join("htpasswd");
        fs::write(&users, output.stdout).expect("write");
        let auth = format!("auth:\n  htpasswd:\n    realm: toolhost-test\n    path: {}\n", users.display());
        let mut registry = Registry::start_with(&auth);
        registry._folder = folder;
        registry
    }

    fn start_with(extra: &str) -> Registry {
        let binary = Path::new("/usr/bin/docker-registry");
        assert!(
            binary.is_file(),
            "docker-registry is not installed: `apt-get install docker-registry` (scripts/test.sh does it when it can)"
        );
        let folder = tempfile::tempdir().expect("temporary folder");
        let (child, port) = serve_on_free_port("docker-registry", |port| {
            let config = format!(
                "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {}\n\
                 http:\n  addr: 127.0.0.1:{port}\n{extra}",
                folder.path().join("data").display()
            );
            fs::write(folder.path().join("config.yml"), config).expect("write");
            let mut command = Command::new(binary);
            command.arg("serve").arg(folder.path().join("config.yml")).stdout(Stdio::null());
            command
        });
        Registry { _child: child, port, _folder: folder }
    }

    /// `127.0.0.1:PORT/tools/NAME:TAG`.
    fn reference(&self, name: &str, tag: &str) -> String {
        format!("127.0.0.1:{}/tools/{name}:{tag}", self.port)
    }
}

fn block_on<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime").block_on(future)
}

/// Options that read no Docker config (the tests' credentials are their own).
fn options() -> RegistryOptions {
    common::with(RegistryOptions::default(), |options| options.docker_config = None)
}

fn example(name: &str) -> PathBuf {
    common::plugins_dir().join(format!("{name}.wasm"))
}

fn host(folder: &Path) -> Host {
    Host::builder().plugin_dir(folder).cache_dir(common::test_cache_dir()).build().expect("host")
}

#[test]
fn a_pushed_component_is_pulled_by_tag_and_by_digest_locked_and_served() {
    let registry = Registry::start();
    let reference = registry.reference("calculator", "1.0.0");
    let pushed = block_on(oci::push(&example("calculator"), &reference, &options())).expect("push");
    assert_eq!(pushed.tools, ["evaluate", "factorial", "gcd", "percentage", "plot", "statistics"]);
    assert!(pushed.artifact.starts_with("sha256:"));

    let plugins = tempfile::tempdir().expect("plugin folder");
    let pulled = block_on(oci::pull(&reference, plugins.path(), &options())).expect("pull");
    assert_eq!((pulled.name.as_str(), pulled.artifact.as_str()), ("calculator", pushed.artifact.as_str()));
    assert_eq!(fs::read(&pulled.path).expect("pulled"), fs::read(example("calculator")).expect("built"));
    assert_eq!(pulled.sha256, pushed.sha256);
    let lock = fs::read_to_string(plugins.path().join("toolhost.lock")).expect("lock");
    assert!(lock.contains(&format!("reference = \"{reference}\"\nartifact = \"{}\"", pushed.artifact)), "{lock}");
    assert!(lock.contains(&format!("sha256 = \"{}\"", pushed.sha256)), "{lock}");
    assert_eq!(host(plugins.path()).call("gcd", &json!({"a": 12, "b": 18})).expect("served"), json!(6));

    let by_digest = format!("127.0.0.1:{}/tools/calculator@{}", registry.port, pushed.artifact);
    let other = tempfile::tempdir().expect("plugin folder");
    let pinned = block_on(oci::pull(&by_digest, other.path(), &options())).expect("pull by digest");
    assert_eq!(pinned.sha256, pushed.sha256);
}

#[test]
fn the_lock_file_pulls_exactly_what_it_names_again_and_a_tampered_file_is_refused() {
    let registry = Registry::start();
    let (calculator, stats) = (registry.reference("calculator", "1"), registry.reference("stats-py", "1"));
    let stats_file = common::plugins_dir().join("stats-py.wasm");
    block_on(oci::push(&example("calculator"), &calculator, &options())).expect("push");
    block_on(oci::push(&stats_file, &stats, &options())).expect("push");
    let plugins = tempfile::tempdir().expect("plugin folder");
    block_on(oci::pull(&calculator, plugins.path(), &options())).expect("pull");
    let pulled = block_on(oci::pull(&stats, plugins.path(), &options())).expect("pull");
    // The Python tool's manifest (its descriptions) travels as a layer of its own.
    assert!(pulled.manifest);
    assert_eq!(
        fs::read(plugins.path().join("stats-py.toml")).expect("manifest"),
        fs::read(common::plugins_dir().join("stats-py.toml")).expect("built")
    );

    // The tag moves on to other code: the lock still pulls the artifact it names.
    block_on(oci::push(&example("units"), &calculator, &options())).expect("push over the tag");
    fs::remove_file(plugins.path().join("calculator.wasm")).expect("remove");
    fs::write(plugins.path().join("stats-py.wasm"), b"tampered").expect("tamper");
    let again = block_on(oci::pull_locked(plugins.path(), &options())).expect("pull from the lock");
    assert_eq!(again.len(), 2);
    assert_eq!(
        fs::read(plugins.path().join("calculator.wasm")).expect("pulled"),
        fs::read(example("calculator")).expect("built")
    );
    assert_eq!(host(plugins.path()).load_report().warnings, Vec::<String>::new());

    fs::copy(example("units"), plugins.path().join("calculator.wasm")).expect("swap");
    let host = host(plugins.path());
    let warnings = host.load_report().warnings;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("calculator.wasm: its content does not match toolhost.lock"), "{}", warnings[0]);
    assert!(host.tool("gcd").is_none());
    assert_eq!(host.call("ratio", &json!({"numerator": 1, "denominator": 4})).expect("stats serves"), json!(0.25));
}

#[test]
fn registry_failures_are_named_and_nothing_is_written() {
    let registry = Registry::start();
    let plugins = tempfile::tempdir().expect("plugin folder");
    let pull = |reference: &str| block_on(oci::pull(reference, plugins.path(), &options())).unwrap_err();

    let missing = pull(&registry.reference("calculator", "9.9.9"));
    assert!(matches!(missing, RegistryError::NotFound { .. }), "{missing}");
    assert_eq!(
        missing.to_string(),
        format!(
            "{} was not found in its registry (no such repository, tag or digest)",
            registry.reference("calculator", "9.9.9")
        )
    );
    let down = pull(&format!("127.0.0.1:{}/tools/calculator:1", free_port()));
    assert!(matches!(down, RegistryError::Unreachable { .. }), "{down}");
    assert!(down.to_string().starts_with("cannot reach the registry 127.0.0.1:"), "{down}");
    let junk = pull("Not A Reference");
    assert!(junk.to_string().contains("is not an OCI reference"), "{junk}");

    // A container image is not a component.
    let image = registry.reference("image", "1");
    block_on(push_container_image(&image)).expect("push an image");
    let not_wasm = pull(&image);
    assert!(matches!(not_wasm, RegistryError::NotWasm { .. }), "{not_wasm}");
    assert!(not_wasm.to_string().contains("its config is application/vnd.oci.image.config.v1+json"), "{not_wasm}");

    // A broken component is not pushed.
    let broken = plugins.path().join("broken.wasm");
    fs::write(&broken, b"\0asm junk").expect("write");
    let refused = block_on(oci::push(&broken, &registry.reference("broken", "1"), &options())).unwrap_err();
    assert!(matches!(refused, RegistryError::Check { .. }), "{refused}");
    assert_eq!(fs::read_dir(plugins.path()).expect("folder").count(), 1, "only the broken file is there");
}

/// An ordinary container image: an OCI image config and a tar layer.
async fn push_container_image(reference: &str) -> Result<(), oci_client::errors::OciDistributionError> {
    use oci_client::client::{ClientConfig, ClientProtocol, Config, ImageLayer};
    let client = oci_client::Client::new(ClientConfig { protocol: ClientProtocol::Http, ..ClientConfig::default() });
    let layer = ImageLayer::new(vec![0; 1024], "application/vnd.oci.image.layer.v1.tar".into(), None);
    let config = Config::oci_v1(br#"{"architecture":"amd64","os":"linux"}"#.to_vec(), None);
    let reference = reference.parse().expect("reference");
    client.push(&reference, &[layer], config, &oci_client::secrets::RegistryAuth::Anonymous, None).await.map(drop)
}

#[test]
fn a_registry_with_users_takes_given_credentials_and_docker_config_and_refuses_anonymous() {
    let registry = Registry::with_user("agent", "s3cret");
    let reference = registry.reference("calculator", "1");
    let given = common::with(options(), |o| o.credentials = Some(Credentials::new("agent", "s3cret")));
    block_on(oci::push(&example("calculator"), &reference, &given)).expect("push with credentials");

    let plugins = tempfile::tempdir().expect("plugin folder");
    let anonymous = block_on(oci::pull(&reference, plugins.path(), &options())).unwrap_err();
    assert!(matches!(anonymous, RegistryError::Unauthorized { .. }), "{anonymous}");
    assert!(anonymous.to_string().contains("--password-stdin, or log in with `docker login 127.0.0.1:"), "{anonymous}");
    let wrong = common::with(options(), |o| o.credentials = Some(Credentials::new("agent", "guess")));
    let refused = block_on(oci::pull(&reference, plugins.path(), &wrong)).unwrap_err();
    assert!(matches!(refused, RegistryError::Unauthorized { .. }), "{refused}");

    // What `docker login` leaves: base64 of user:password under the registry's name.
    let docker = tempfile::tempdir().expect("docker config folder");
    let auth = base64::engine::general_purpose::STANDARD.encode("agent:s3cret");
    let config = json!({"auths": {format!("127.0.0.1:{}", registry.port): {"auth": auth}}});
    fs::write(docker.path().join("config.json"), config.to_string()).expect("write");
    let from_config = common::with(options(), |o| o.docker_config = Some(docker.path().join("config.json")));
    block_on(oci::pull(&reference, plugins.path(), &from_config)).expect("pull with Docker's credentials");
}

/// `toolhost push` and `toolhost pull` with a password on stdin, then `toolhost pull`
/// with no reference, from the lock file.
#[test]
fn the_command_pushes_and_pulls_with_a_password_on_stdin() {
    use std::io::Write;
    let registry = Registry::with_user("agent", "s3cret");
    let reference = registry.reference("units", "2.0.0");
    let plugins = tempfile::tempdir().expect("plugin folder");
    let run = |args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(args)
            .env("DOCKER_CONFIG", plugins.path().join("no-docker"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("toolhost runs");
        child.stdin.take().expect("stdin").write_all(b"s3cret\n").expect("password");
        child.wait_with_output().expect("toolhost ends")
    };
    let units = example("units");
    let pushed = run(&["push", units.to_str().expect("UTF-8"), &reference, "--username", "agent", "--password-stdin"]);
    assert!(pushed.status.success(), "{}", String::from_utf8_lossy(&pushed.stderr));
    assert!(String::from_utf8_lossy(&pushed.stdout).contains(&format!("-> {reference}@sha256:")));

    let folder = plugins.path().to_str().expect("UTF-8");
    let denied = run(&["pull", &reference, "--plugins", folder]);
    assert_eq!(denied.status.code(), Some(2), "an error, not a tool's failure");
    assert!(String::from_utf8_lossy(&denied.stderr).contains("refused access to"), "{denied:?}");
    let pulled = run(&["pull", &reference, "--plugins", folder, "--username", "agent", "--password-stdin"]);
    assert!(pulled.status.success(), "{}", String::from_utf8_lossy(&pulled.stderr));
    fs::remove_file(plugins.path().join("units.wasm")).expect("remove");
    let again = run(&["pull", "--plugins", folder, "--username", "agent", "--password-stdin"]);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(fs::read(plugins.path().join("units.wasm")).expect("pulled again"), fs::read(&units).expect("built"));
}

/// A key pair made by the library, written as `cosign.key` and `cosign.pub` would be.
fn key_pair(folder: &Path, name: &str, password: &str) -> (PathBuf, PathBuf) {
    let (private, public) = oci::generate_key_pair(password.as_bytes()).expect("a key pair");
    let (private_path, public_path) = (folder.join(format!("{name}.key")), folder.join(format!("{name}.pub")));
    fs::write(&private_path, private.as_bytes()).expect("write");
    fs::write(&public_path, public).expect("write");
    (private_path, public_path)
}

#[test]
fn with_a_key_only_an_artifact_it_signed_is_pulled_and_the_lock_says_who_signed() {
    let registry = Registry::start();
    let keys = tempfile::tempdir().expect("key folder");
    let (author_key, author_pub) = key_pair(keys.path(), "author", "open sesame");
    let (_, stranger_pub) = key_pair(keys.path(), "stranger", "");
    let author = VerifyingKey::from_file(&author_pub).expect("public key");
    let stranger = VerifyingKey::from_file(&stranger_pub).expect("public key");
    let signing = SigningKey::from_file(&author_key, b"open sesame").expect("private key");
    assert_eq!(signing.id(), author.id(), "a key pair's halves have one fingerprint");

    let (signed, unsigned) = (registry.reference("calculator", "1"), registry.reference("units", "1"));
    let with_signing = common::with(options(), |o| o.signing_key = Some(signing));
    let pushed = block_on(oci::push(&example("calculator"), &signed, &with_signing)).expect("signed push");
    assert_eq!(pushed.signed_by.as_deref(), Some(author.id()));
    block_on(oci::push(&example("units"), &unsigned, &options())).expect("unsigned push");

    let plugins = tempfile::tempdir().expect("plugin folder");
    let pull = |reference: &str, keys: Vec<VerifyingKey>| {
        block_on(oci::pull(reference, plugins.path(), &common::with(options(), |o| o.keys = keys)))
    };
    let wrong = pull(&signed, vec![stranger.clone()]).unwrap_err();
    assert!(matches!(wrong, RegistryError::Unsigned { .. }), "{wrong}");
    assert!(wrong.to_string().contains("none of its 1 signature(s) was made with the key(s) given"), "{wrong}");
    assert!(wrong.to_string().contains(stranger.id()), "{wrong}");
    let none = pull(&unsigned, vec![author.clone()]).unwrap_err();
    assert!(none.to_string().contains("it carries no cosign signature"), "{none}");
    assert_eq!(fs::read_dir(plugins.path()).expect("folder").count(), 0, "nothing written when refused");

    let pulled = pull(&signed, vec![stranger, author.clone()]).expect("signed by one of the keys");
    assert_eq!(pulled.signed_by, [author.id()]);
    let lock = fs::read_to_string(plugins.path().join("toolhost.lock")).expect("lock");
    assert!(lock.contains(&format!("signed-by = [\"{}\"]", author.id())), "{lock}");
    pull(&unsigned, Vec::new()).expect("with no key an unsigned artifact is pulled");

    let host = host(plugins.path());
    let provenance = |name: &str| {
        let report = host.load_report();
        report.components.iter().find(|c| c.name == name).expect("loaded").provenance.clone()
    };
    assert_eq!(provenance("calculator"), Provenance::Pulled { reference: signed, signed_by: vec![author.id().into()] });
    assert!(provenance("units").is_unverified());

    // A re-pull without keys keeps what the first pull verified (the artifact is pinned).
    let again = block_on(oci::pull_locked(plugins.path(), &options())).expect("pull from the lock");
    let calculator = again.iter().find(|p| p.name == "calculator").expect("re-pulled");
    assert_eq!(calculator.signed_by, [author.id()]);
}

#[test]
fn keys_that_cannot_be_used_are_named() {
    let keys = tempfile::tempdir().expect("key folder");
    let (private, public) = key_pair(keys.path(), "cosign", "right");
    let wrong = SigningKey::from_file(&private, b"wrong").unwrap_err();
    assert!(wrong.to_string().contains("is COSIGN_PASSWORD its password?"), "{wrong}");
    let not_private = SigningKey::from_file(&public, b"").unwrap_err();
    assert!(not_private.to_string().contains("not a PEM private key"), "{not_private}");
    let junk = keys.path().join("junk.pub");
    fs::write(&junk, "not a key").expect("write");
    let not_public = VerifyingKey::from_file(&junk).unwrap_err();
    assert!(not_public.to_string().starts_with(&format!("the key {} cannot be used", junk.display())), "{not_public}");
    let missing = VerifyingKey::from_file(&keys.path().join("missing.pub")).unwrap_err();
    assert!(missing.to_string().contains("cannot read it"), "{missing}");
}

/// `toolhost generate-key-pair`, `push --sign`, `pull --key`, and `list` marking what was
/// pulled unsigned.
#[test]
fn the_command_signs_verifies_and_lists_unverified_components() {
    let registry = Registry::start();
    let work = tempfile::tempdir().expect("folder");
    let toolhost = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(args)
            .current_dir(work.path())
            .env("COSIGN_PASSWORD", "correct horse")
            .env("DOCKER_CONFIG", work.path().join("no-docker"))
            .env("TOOLHOST_CACHE_DIR", common::test_cache_dir())
            .output()
            .expect("toolhost runs")
    };
    let text = |output: &std::process::Output| {
        format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
    };
    let made = toolhost(&["generate-key-pair"]);
    assert!(made.status.success(), "{}", text(&made));
    let again = toolhost(&["generate-key-pair"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(text(&again).contains("cosign.key exists"), "{}", text(&again));
    let dotted = toolhost(&["generate-key-pair", "--output-key-prefix", "release.v2"]);
    assert!(dotted.status.success(), "{}", text(&dotted));
    assert!(work.path().join("release.v2.key").is_file() && work.path().join("release.v2.pub").is_file());
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &fs::metadata(work.path().join("cosign.key")).expect("key").permissions(),
    );
    assert_eq!(mode & 0o077, 0, "the private key is its owner's alone");

    let (signed, unsigned) = (registry.reference("calculator", "2"), registry.reference("units", "2"));
    let calculator = example("calculator");
    let units = example("units");
    let pushed = toolhost(&["push", calculator.to_str().expect("UTF-8"), &signed, "--sign", "cosign.key"]);
    assert!(pushed.status.success(), "{}", text(&pushed));
    assert!(text(&pushed).contains(", signed by sha256:"), "{}", text(&pushed));
    let plain = toolhost(&["push", units.to_str().expect("UTF-8"), &unsigned]);
    assert!(plain.status.success(), "{}", text(&plain));

    let refused = toolhost(&["pull", &unsigned, "--plugins", "plugins", "--key", "cosign.pub"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused).contains("carries no cosign signature"), "{}", text(&refused));
    let verified = toolhost(&["pull", &signed, "--plugins", "plugins", "--key", "cosign.pub"]);
    assert!(verified.status.success(), "{}", text(&verified));
    let trusting = toolhost(&["pull", &unsigned, "--plugins", "plugins"]);
    assert!(trusting.status.success(), "{}", text(&trusting));
    assert!(text(&trusting).contains(", unsigned"), "{}", text(&trusting));

    let listed = toolhost(&["list", "--plugins", "plugins"]);
    assert!(listed.status.success(), "{}", text(&listed));
    let listed = text(&listed);
    assert!(listed.contains(&format!("calculator: pulled from {signed}, signed by sha256:")), "{listed}");
    assert!(listed.contains(&format!("units: pulled from {unsigned}, UNVERIFIED")), "{listed}");
}
