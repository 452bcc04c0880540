//! `toolhost pull` and `toolhost push`: the library's registry operations with
//! credentials from the command line and a spinner on a terminal.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use toolhost::registry::{self, Credentials, RegistryOptions};

/// How to reach the registry.
#[derive(Args)]
pub struct RegistryArgs {
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
        let mut options = RegistryOptions { insecure: self.insecure, ..RegistryOptions::default() };
        if let Some(username) = &self.username {
            let mut password = String::new();
            std::io::stdin().read_line(&mut password).context("cannot read the password from stdin")?;
            let password = password.trim_end_matches(['\r', '\n']).to_string();
            options.credentials = Some(Credentials { username: username.clone(), password });
        }
        Ok(options)
    }
}

/// Pulls `reference` into `plugins`, or everything `plugins/toolhost.lock` names.
pub fn pull(reference: Option<&str>, plugins: &Path, args: &RegistryArgs) -> anyhow::Result<ExitCode> {
    let options = args.options()?;
    let what = reference.map_or_else(|| format!("what {}/toolhost.lock names", plugins.display()), str::to_string);
    let pulled = with_spinner(&format!("pulling {what}"), async {
        match reference {
            Some(reference) => registry::pull(reference, plugins, &options).await.map(|one| vec![one]),
            None => registry::pull_locked(plugins, &options).await,
        }
    })?;
    for one in &pulled {
        let manifest = if one.manifest { " (with its manifest)" } else { "" };
        println!(
            "{} <- {} (artifact {}){manifest}, {} bytes, {}",
            one.path.display(),
            one.reference,
            one.artifact,
            one.bytes,
            one.sha256
        );
    }
    if pulled.is_empty() {
        println!("{}/toolhost.lock names no components", plugins.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Pushes `file` to `reference`.
pub fn push(file: &Path, reference: &str, args: &RegistryArgs) -> anyhow::Result<ExitCode> {
    let options = args.options()?;
    let pushed = with_spinner(&format!("pushing {}", file.display()), registry::push(file, reference, &options))?;
    println!(
        "{} -> {}@{} ({} tools: {})",
        file.display(),
        pushed.reference,
        pushed.artifact,
        pushed.tools.len(),
        pushed.tools.join(", ")
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs `work` to its end, with a spinner saying `message` on a terminal.
fn with_spinner<T>(message: &str, work: impl Future<Output = Result<T, registry::RegistryError>>) -> anyhow::Result<T> {
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
