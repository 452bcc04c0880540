//! `toolhost pull`, `push` and `generate-key-pair`: the library's OCI operations
//! with credentials and keys from the command line and a spinner on a terminal.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use toolhost::oci::{self, Credentials, RegistryOptions, SigningKey, VerifyingKey};

/// The environment variable holding the password of an encrypted private key (cosign's).
const PASSWORD_VARIABLE: &str = "COSIGN_PASSWORD";

/// How to reach the registry.
#[derive(Args)]
pub(crate) struct RegistryArgs {
    /// Speak plain HTTP to the registry (without it, only a loopback registry is
    /// reached over plain HTTP).
    #[arg(long)]
    insecure: bool,
    /// The user name to log in with (the password is read from stdin, with
    /// --password-stdin); without it, Docker's config.json is read ($DOCKER_CONFIG).
    #[arg(long, requires = "password_stdin")]
    username: Option<String>,
    /// Read the password (or token) from stdin.
    #[arg(long, requires = "username")]
    password_stdin: bool,
}

impl RegistryArgs {
    fn options(&self) -> anyhow::Result<RegistryOptions> {
        let mut options = RegistryOptions::default();
        options.insecure = self.insecure;
        if let Some(username) = &self.username {
            let mut password = String::new();
            std::io::stdin().read_line(&mut password).context("cannot read the password from stdin")?;
            let password = password.trim_end_matches(['\r', '\n']).to_string();
            options.credentials = Some(Credentials::new(username, &password));
        }
        Ok(options)
    }
}

/// Pulls `reference` into `plugins`, or everything `plugins/toolhost.lock` names; with
/// `keys`, only an artifact signed with one of them.
pub(crate) fn pull(
    reference: Option<&str>,
    plugins: &Path,
    keys: &[PathBuf],
    args: &RegistryArgs,
) -> anyhow::Result<ExitCode> {
    let mut options = args.options()?;
    for key in keys {
        options.keys.push(VerifyingKey::from_file(key)?);
    }
    let what = reference.map_or_else(|| format!("what {}/toolhost.lock names", plugins.display()), str::to_string);
    let pulled = with_spinner(&format!("pulling {what}"), oci::pull_into(plugins, reference, &options))?;
    for one in &pulled {
        let manifest = if one.manifest { " (with its manifest)" } else { "" };
        println!(
            "{} <- {} (artifact {}){manifest}, {} bytes, {}, {}",
            one.path.display(),
            one.reference,
            one.artifact,
            one.bytes,
            one.sha256,
            signed_by(&one.signed_by)
        );
    }
    if pulled.is_empty() {
        println!("{}/toolhost.lock names no components", plugins.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Pushes `file` to `reference`, signed with `sign` if given.
pub(crate) fn push(file: &Path, reference: &str, sign: Option<&Path>, args: &RegistryArgs) -> anyhow::Result<ExitCode> {
    let mut options = args.options()?;
    if let Some(key) = sign {
        options.signing_key = Some(SigningKey::from_file(key, password().as_bytes())?);
    }
    let pushed = with_spinner(&format!("pushing {}", file.display()), oci::push(file, reference, &options))?;
    println!(
        "{} -> {}@{} ({} tools: {}), {}",
        file.display(),
        pushed.reference,
        pushed.artifact,
        pushed.tools.len(),
        pushed.tools.join(", "),
        signed_by(pushed.signed_by.as_slice())
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes a new key pair, `PREFIX.key` (encrypted with `COSIGN_PASSWORD`, readable by
/// its owner only) and `PREFIX.pub`, refusing to replace either.
pub(crate) fn generate_key_pair(prefix: &Path) -> anyhow::Result<ExitCode> {
    let (private, public) = oci::generate_key_pair(password().as_bytes())?;
    // Appended, not swapped for an extension: `--output-key-prefix release.v2` stays whole.
    let with_suffix = |suffix: &str| {
        let mut path = prefix.as_os_str().to_owned();
        path.push(suffix);
        PathBuf::from(path)
    };
    let (private_path, public_path) = (with_suffix(".key"), with_suffix(".pub"));
    for path in [&private_path, &public_path] {
        anyhow::ensure!(!path.exists(), "{} exists: remove it or give another --output-key-prefix", path.display());
    }
    write_new(&private_path, private.as_bytes(), 0o600)?;
    write_new(&public_path, public.as_bytes(), 0o644)?;
    println!("private key written to {}", private_path.display());
    println!("public key written to {}", public_path.display());
    Ok(ExitCode::SUCCESS)
}

/// The password of an encrypted private key: `COSIGN_PASSWORD`, or none.
fn password() -> zeroize::Zeroizing<String> {
    zeroize::Zeroizing::new(std::env::var(PASSWORD_VARIABLE).unwrap_or_default())
}

fn write_new(path: &Path, bytes: &[u8], mode: u32) -> anyhow::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
    #[cfg(not(unix))]
    let _ = mode;
    let mut file = options.open(path).with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(bytes).with_context(|| format!("cannot write {}", path.display()))
}

/// "signed by KEY, …" or "unsigned".
fn signed_by(keys: &[String]) -> String {
    if keys.is_empty() { "unsigned".to_string() } else { format!("signed by {}", keys.join(", ")) }
}

/// Runs `work` to its end, with a spinner saying `message` on a terminal.
fn with_spinner<T>(message: &str, work: impl Future<Output = Result<T, oci::RegistryError>>) -> anyhow::Result<T> {
    let spinner = std::io::stderr().is_terminal().then(|| {
        let spinner = indicatif::ProgressBar::new_spinner().with_message(message.to_string());
        spinner.enable_steady_tick(std::time::Duration::from_millis(100));
        spinner
    });
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")?;
    let outcome = runtime.block_on(work);
    if let Some(spinner) = spinner {
        spinner.finish_and_clear();
    }
    Ok(outcome?)
}
