//! `toolhost secret set|list|rm`: the secrets kept for components (see
//! `toolhost::SecretStore`). A value comes from stdin or a file, never from the
//! command line (where `ps` and the shell's history would show it), and is never
//! printed.

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};
use toolhost::SecretStore;

/// Where the secrets are kept.
#[derive(Args, Default)]
pub(crate) struct SecretsDir {
    /// The secrets folder [default: TOOLHOST_SECRETS_DIR, else ~/.config/toolhost/secrets].
    #[arg(long, env = "TOOLHOST_SECRETS_DIR", global = true)]
    secrets_dir: Option<PathBuf>,
}

impl SecretsDir {
    /// The store it names.
    pub(crate) fn store(&self) -> SecretStore {
        SecretStore::new(self.secrets_dir.clone().unwrap_or_else(SecretStore::default_dir))
    }
}

/// What to do with the secrets.
#[derive(Subcommand)]
pub(crate) enum SecretAction {
    /// Stores the secret NAME for COMPONENT's calls (they see it as the environment
    /// variable NAME), read from stdin (one trailing newline dropped) or --from-file.
    Set {
        /// The component (its file name without `.wasm`).
        component: String,
        /// The secret's name.
        name: String,
        /// Read the value from this file instead of stdin (a Kubernetes Secret's mount).
        #[arg(long, value_name = "FILE")]
        from_file: Option<PathBuf>,
        #[command(flatten)]
        dir: SecretsDir,
    },
    /// Lists the secrets stored (COMPONENT NAME per line), never their values.
    List {
        /// Only this component's.
        component: Option<String>,
        #[command(flatten)]
        dir: SecretsDir,
    },
    /// Removes the secret NAME of COMPONENT.
    Rm {
        /// The component.
        component: String,
        /// The secret's name.
        name: String,
        #[command(flatten)]
        dir: SecretsDir,
    },
}

/// Runs `action`.
pub(crate) fn run(action: SecretAction) -> anyhow::Result<ExitCode> {
    match action {
        SecretAction::Set { component, name, from_file, dir } => {
            let value = match &from_file {
                Some(file) => {
                    std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?
                }
                None => {
                    let mut value = String::new();
                    std::io::stdin().read_to_string(&mut value).context("cannot read the value from stdin")?;
                    value
                }
            };
            let value = value.strip_suffix('\n').map(|v| v.strip_suffix('\r').unwrap_or(v)).unwrap_or(&value);
            let store = dir.store();
            store.set(&component, &name, value)?;
            eprintln!("stored the secret {component}/{name} in {}", store.dir().display());
        }
        SecretAction::List { component, dir } => {
            for (owner, name) in dir.store().list()? {
                if component.as_ref().is_none_or(|wanted| *wanted == owner) {
                    println!("{owner} {name}");
                }
            }
        }
        SecretAction::Rm { component, name, dir } => {
            if !dir.store().remove(&component, &name)? {
                eprintln!("no secret {component}/{name} is stored");
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
