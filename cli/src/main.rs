//! The `toolhost` command: a thin face over the library. Each subcommand loads a
//! plugin folder into a [`Host`] and prints what the library returns; the replay of
//! recorded model calls is in `replay.rs`.

mod config;
mod oci;
mod replay;
mod secret;
mod serve;
mod telemetry;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::parser::ValueSource;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use toolhost::{Capacity, Compiler, Host, HostBuilder, Provenance, ToolFormat, ToolOrigin, ToolSpec};

/// Run an AI agent's tools as sandboxed WebAssembly components.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Where the components are, and where their compiled forms are kept.
#[derive(Args)]
struct Plugins {
    /// The plugin folder: every `*.wasm` component in it is loaded.
    #[arg(long, env = "TOOLHOST_PLUGINS", default_value = "plugins", global = true)]
    plugins: PathBuf,
    /// Read compiled components from this shared, read-only cache folder (writable by
    /// its owner alone, who is trusted) instead of the private cache
    /// (TOOLHOST_CACHE_DIR, default ~/.cache/toolhost).
    #[arg(long, env = "TOOLHOST_SHARED_CACHE_DIR", global = true)]
    shared_cache: Option<PathBuf>,
    /// Which compiler makes the code of a component not in the cache: `auto` serves a
    /// large one (2 MiB or more) at once on baseline code and optimizes it in the
    /// background; `optimizing` optimizes every one before serving; `baseline` never
    /// optimizes (fastest start, slower calls) [default: auto].
    #[arg(long, env = "TOOLHOST_COMPILER", global = true, value_parser = |name: &str| name.parse::<Compiler>())]
    compiler: Option<Compiler>,
    /// Rank tool searches by meaning too, with the sentence-embedding model in this
    /// folder (a BERT-family model as sentence-transformers saves one: config.json,
    /// tokenizer.json, model.safetensors; e.g. all-MiniLM-L6-v2). Needs a toolhost
    /// built with `--features semantic`.
    #[arg(long, env = "TOOLHOST_EMBEDDING_MODEL", global = true)]
    embedding_model: Option<PathBuf>,
    #[command(flatten)]
    secrets: secret::SecretsDir,
}

impl Plugins {
    /// A host builder for these plugins, this cache and this embedding model.
    fn builder(&self) -> anyhow::Result<HostBuilder> {
        let builder = Host::builder()
            .plugin_dir(&self.plugins)
            .compiler(self.compiler.unwrap_or_default())
            .secrets_dir(self.secrets.store().dir());
        let builder = match &self.shared_cache {
            Some(shared) => builder.shared_cache_dir(shared),
            None => builder,
        };
        self.with_embedding_model(builder)
    }

    /// `builder` with the embedding model, if one is named.
    #[cfg(feature = "semantic")]
    fn with_embedding_model(&self, builder: HostBuilder) -> anyhow::Result<HostBuilder> {
        let Some(dir) = &self.embedding_model else { return Ok(builder) };
        let model = toolhost::EmbeddingModel::load(dir)
            .with_context(|| format!("--embedding-model {}: not a sentence-embedding model", dir.display()))?;
        Ok(builder.embedding_model(model))
    }

    /// `builder`, or why a named embedding model cannot be used by this build.
    #[cfg(not(feature = "semantic"))]
    fn with_embedding_model(&self, builder: HostBuilder) -> anyhow::Result<HostBuilder> {
        match &self.embedding_model {
            None => Ok(builder),
            Some(_) => anyhow::bail!(
                "--embedding-model (TOOLHOST_EMBEDDING_MODEL): this toolhost was built without search by meaning; \
                 build it with `cargo install toolhost-cli --features semantic`, or leave the model out to search by words"
            ),
        }
    }
}

/// How many calls the server runs at once, and how many wait for a turn.
#[derive(Args)]
struct CapacityArgs {
    /// Calls that run at once [default: four per core, at least four; at most 256].
    #[arg(long, env = "TOOLHOST_MAX_CONCURRENT_CALLS")]
    max_concurrent_calls: Option<usize>,
    /// Calls that may wait for a turn; more are told the host is busy [default: 1024].
    #[arg(long, env = "TOOLHOST_MAX_QUEUED_CALLS")]
    max_queued_calls: Option<usize>,
    /// How long a call may wait for a turn, in milliseconds [default: 30000].
    #[arg(long, env = "TOOLHOST_QUEUE_TIMEOUT_MS")]
    queue_timeout_ms: Option<u64>,
}

impl CapacityArgs {
    fn capacity(&self) -> Capacity {
        let mut capacity = Capacity::default();
        capacity.max_concurrent_calls = self.max_concurrent_calls.unwrap_or(capacity.max_concurrent_calls);
        capacity.max_queued_calls = self.max_queued_calls.unwrap_or(capacity.max_queued_calls);
        capacity.queue_timeout = self.queue_timeout_ms.map_or(capacity.queue_timeout, std::time::Duration::from_millis);
        capacity
    }
}

#[derive(Subcommand)]
enum Command {
    /// Lists every tool: name, component, parameters and description.
    List {
        #[command(flatten)]
        plugins: Plugins,
    },
    /// Finds the tools that fit a task described in words (or a made-up tool name),
    /// best first: the words of each tool's name, description and parameters.
    Search {
        #[command(flatten)]
        plugins: Plugins,
        /// What the tool should do ("convert miles to kilometres"), or a name.
        query: String,
        /// The most tools to show.
        #[arg(long, short = 'n', default_value_t = 10)]
        limit: usize,
        /// Print JSON: an array of {name, score, component, description, parameters}.
        #[arg(long)]
        json: bool,
    },
    /// Prints the tool definitions a model is given, in a provider's format.
    Schema {
        #[command(flatten)]
        plugins: Plugins,
        /// openai, openai-responses, anthropic or mcp.
        #[arg(long, default_value = "openai")]
        format: String,
    },
    /// Calls a tool as a model would; prints the result as JSON, or the corrective
    /// message and exits with 1.
    Call {
        #[command(flatten)]
        plugins: Plugins,
        /// The tool's name, as a model would send it.
        name: String,
        /// The arguments, as the JSON text a model would send; `-` reads them from
        /// stdin, `@FILE` from a file (for text longer than a command line takes).
        #[arg(default_value = "{}")]
        arguments: String,
        /// Print on stderr everything the host repaired to run the call.
        #[arg(long, short)]
        verbose: bool,
    },
    /// Compiles every component of the plugin folder with the optimizing compiler
    /// into the cache (those not there yet), so that every later start serves
    /// optimized code from its first call. `pull` does it for the folder it pulls
    /// into; a command that ends before its host has optimized a large component
    /// starts it in the background.
    Prepare {
        #[command(flatten)]
        plugins: Plugins,
    },
    /// Fetches a component from an OCI registry into the plugin folder and records
    /// its digest in toolhost.lock; with no reference, fetches again exactly what
    /// toolhost.lock names. Then prepares the folder (see `prepare`).
    Pull {
        /// registry/repository:tag or registry/repository@sha256:…; the file is
        /// named after the repository's last part.
        reference: Option<String>,
        /// The plugin folder to pull into.
        #[arg(long, env = "TOOLHOST_PLUGINS", default_value = "plugins")]
        plugins: PathBuf,
        /// A public key (PEM, as `cosign.pub`) the artifact must carry a cosign
        /// signature of; several: any one of them (TOOLHOST_KEYS: comma-separated).
        /// Without it, unsigned artifacts are pulled, and `toolhost list` shows them
        /// unverified.
        #[arg(long = "key", value_name = "PUBLIC_KEY", env = "TOOLHOST_KEYS", value_delimiter = ',')]
        keys: Vec<PathBuf>,
        #[command(flatten)]
        registry: oci::RegistryArgs,
    },
    /// Publishes a component (with NAME.toml beside it, if any) to an OCI registry,
    /// once it loads as `toolhost check` would show it.
    Push {
        /// The component file.
        file: PathBuf,
        /// registry/repository:tag to push to.
        reference: String,
        /// Sign the artifact, as `cosign sign --key` does, with this private key
        /// (`cosign.key`, its password in COSIGN_PASSWORD; or an unencrypted PKCS#8 PEM).
        #[arg(long, value_name = "PRIVATE_KEY")]
        sign: Option<PathBuf>,
        #[command(flatten)]
        registry: oci::RegistryArgs,
    },
    /// Writes a new signing key pair as `cosign generate-key-pair` does: PREFIX.key
    /// (encrypted with COSIGN_PASSWORD) for `push --sign`, PREFIX.pub for `pull --key`.
    GenerateKeyPair {
        /// Where to write the two files.
        #[arg(long, default_value = "cosign")]
        output_key_prefix: PathBuf,
    },
    /// Shows what the host makes of one component: its tools and any warnings.
    Check {
        /// The component file.
        file: PathBuf,
    },
    /// Replays recorded model tool calls (JSON lines) and shows what the host did
    /// with each and what the model gets back.
    Replay {
        #[command(flatten)]
        plugins: Plugins,
        /// The transcript: one call a line, `{"name": …, "arguments": …}` (OpenAI and
        /// Anthropic tool-call objects are read too).
        transcript: PathBuf,
    },
    /// Reads a model's reply on stdin and prints, as a JSON array, the tool calls it
    /// wrote into its text (every format vLLM's and llama.cpp's tool parsers read:
    /// `<tool_call>`, `[TOOL_CALLS]`, harmony, Kimi, DeepSeek, GLM, `<invoke>`,
    /// Python-style, Gemma, …; see the README), in order; a call whose name resolves
    /// to no tool is listed with `rejected`. Nothing runs.
    Extract {
        #[command(flatten)]
        plugins: Plugins,
    },
    /// Serves the tools over MCP on stdin/stdout, or with --http over streamable HTTP.
    Serve {
        /// Take every setting the flags and variables leave unset from this TOML file
        /// (see `toolhost config check`).
        #[arg(long, env = "TOOLHOST_CONFIG", value_name = "FILE")]
        config: Option<PathBuf>,
        #[command(flatten)]
        plugins: Plugins,
        /// Reload when components are added, replaced or removed (the client is told).
        #[arg(long)]
        watch: bool,
        #[command(flatten)]
        capacity: CapacityArgs,
        // Boxed: the HTTP settings would make every other command's value as large.
        #[command(flatten)]
        http: Box<serve::HttpArgs>,
        #[command(flatten)]
        audit: serve::AuditArgs,
        #[command(flatten)]
        rate_limits: serve::RateLimitArgs,
        /// List only the tools matching these patterns (comma-separated; none: no
        /// tool) and `find_tools`, which finds the others by what they do and returns
        /// their definitions; every tool stays callable by its name.
        #[arg(
            long,
            env = "TOOLHOST_DISCLOSE",
            value_name = "CORE",
            num_args = 0..=1,
            default_missing_value = "",
            value_delimiter = ','
        )]
        disclose: Option<Vec<String>>,
        /// Serve only the tools of the config file's profile NAME (`[profiles.NAME]`);
        /// over HTTP every profile is served at /mcp/NAME instead.
        #[arg(long, env = "TOOLHOST_PROFILE", value_name = "NAME")]
        profile: Option<String>,
    },
    /// Stores, lists and removes the secrets kept for components: each component's
    /// calls see its own as environment variables (`toolhost secret set weather
    /// API_KEY < key.txt`).
    Secret {
        #[command(subcommand)]
        action: secret::SecretAction,
    },
    /// Checks a config file for `toolhost serve --config` without serving: its keys,
    /// values, secrets' variables and files; prints the settings it makes.
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
}

#[derive(Subcommand)]
enum ConfigAction {
    /// Validates FILE; exits with 2 and names the key at fault when it is not valid.
    Check {
        /// The config file.
        file: PathBuf,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("TOOLHOST_LOG").unwrap_or_else(|_| "error".into()))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit());
    match run(cli, &matches) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli, matches: &ArgMatches) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::List { plugins } => list(&plugins),
        Command::Search { plugins, query, limit, json } => search(&plugins, &query, limit, json),
        Command::Schema { plugins, format } => schema(&plugins, &format),
        Command::Call { plugins, name, arguments, verbose } => call(&plugins, &name, arguments, verbose),
        Command::Check { file } => check(&file),
        Command::Prepare { plugins } => prepare(&plugins),
        Command::Pull { reference, plugins, keys, registry } => pull(reference.as_deref(), plugins, &keys, &registry),
        Command::Push { file, reference, sign, registry } => oci::push(&file, &reference, sign.as_deref(), &registry),
        Command::GenerateKeyPair { output_key_prefix } => oci::generate_key_pair(&output_key_prefix),
        Command::Extract { plugins } => extract(&plugins),
        Command::Replay { plugins, transcript } => {
            let text = std::fs::read_to_string(&transcript)
                .with_context(|| format!("cannot read the transcript {}", transcript.display()))?;
            let host = load(&plugins)?;
            replay::replay(&host, &text)
        }
        Command::Serve {
            config,
            mut plugins,
            mut watch,
            mut capacity,
            mut http,
            mut audit,
            mut rate_limits,
            disclose,
            profile,
        } => {
            let disclosure = disclose.map(|core| core_patterns(&core)).transpose()?;
            let mut shown = serve::Shown { disclosure, profile, ..serve::Shown::default() };
            let mut from_config = config::HostSettings::default();
            if let Some(file) = config {
                let plugins_given = matches.subcommand_matches("serve").is_some_and(|serve| {
                    matches!(serve.value_source("plugins"), Some(ValueSource::CommandLine | ValueSource::EnvVariable))
                });
                let settings = config::ServeSettings {
                    plugins: &mut plugins,
                    plugins_given,
                    watch: &mut watch,
                    capacity: &mut capacity,
                    http: &mut http,
                    audit: &mut audit,
                    rate_limits: &mut rate_limits,
                };
                let config = config::Config::load(&file)?;
                config.apply_auth(settings.http)?;
                config.apply_shown(&mut shown)?;
                from_config = config.host_settings()?;
                config.apply(settings);
            }
            shown.check(http.address().is_some())?;
            serve(&plugins, (watch, &from_config), &capacity, &http, (&audit, &rate_limits), &shown)
        }
        Command::Secret { action } => secret::run(action),
        Command::Config { action: ConfigAction::Check { file } } => {
            let config = config::Config::load(&file)?;
            println!("{}: valid\n{}", file.display(), config.summary());
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `toolhost list`: every tool, then where each pulled component came from.
fn list(plugins: &Plugins) -> anyhow::Result<ExitCode> {
    let host = load(plugins)?;
    print_tools(&host.tools());
    print_provenance(&host.load_report());
    Ok(ExitCode::SUCCESS)
}

/// `toolhost search`: the tools that fit a query, best first; exit code 1 when none does.
fn search(plugins: &Plugins, query: &str, limit: usize, json: bool) -> anyhow::Result<ExitCode> {
    let host = load(plugins)?;
    // One search, then the process ends: the tools' vectors are made now (those kept
    // in the cache from an earlier run are not made again).
    #[cfg(feature = "semantic")]
    host.embed_tools()?;
    let found: Vec<(toolhost::ToolMatch, ToolSpec)> = host
        .search_tools(query, limit)
        .into_iter()
        .filter_map(|found| host.tool(&found.name).map(|spec| (found, spec)))
        .collect();
    if json {
        let found: Vec<serde_json::Value> = found
            .iter()
            .map(|(found, spec)| {
                serde_json::json!({
                    "name": found.name,
                    "score": found.score,
                    "component": spec.component,
                    "description": spec.description,
                    "parameters": spec.parameters_schema(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&found)?);
    } else {
        let specs: Vec<ToolSpec> = found.iter().map(|(_, spec)| spec.clone()).collect();
        print_tools(&specs);
    }
    if found.is_empty() {
        eprintln!("no tool shares a word with '{query}': `toolhost list` shows them all");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// `toolhost schema`: the tool definitions in a provider's format.
fn schema(plugins: &Plugins, format: &str) -> anyhow::Result<ExitCode> {
    let format: ToolFormat = format.parse()?;
    let host = load(plugins)?;
    println!("{}", serde_json::to_string_pretty(&host.tool_definitions(format))?);
    Ok(ExitCode::SUCCESS)
}

/// `toolhost call`: one call as a model would make it; the value, or the corrective
/// message and exit code 1.
fn call(plugins: &Plugins, name: &str, arguments: String, verbose: bool) -> anyhow::Result<ExitCode> {
    let arguments = argument_text(arguments)?;
    let host = load(plugins)?;
    let outcome = host.request(name).text(&arguments).run();
    if verbose {
        for repair in &outcome.repairs {
            eprintln!("repaired: {repair}");
        }
    } else if let (Some(from), Some(tool)) = (&outcome.repaired_from, &outcome.tool) {
        eprintln!("repaired tool name '{from}' -> '{tool}'");
    }
    match outcome.result {
        Ok(value) => {
            println!("{}", serde_json::to_string_pretty(&value)?);
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            println!("{error}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// `toolhost extract`: the calls written in the reply on stdin, as JSON; nothing runs.
fn extract(plugins: &Plugins) -> anyhow::Result<ExitCode> {
    let mut reply = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut reply).context("cannot read the reply")?;
    let host = load(plugins)?;
    let extraction = host.extract_calls(&reply);
    println!("{}", serde_json::to_string_pretty(&extraction.in_order())?);
    eprintln!("{}", extraction.summary());
    Ok(ExitCode::SUCCESS)
}

/// `toolhost serve`: MCP over streamable HTTP with `--http`, else over stdio.
fn serve(
    plugins: &Plugins,
    (watch, from_config): (bool, &config::HostSettings),
    capacity: &CapacityArgs,
    http: &serve::HttpArgs,
    (audit, rate_limits): (&serve::AuditArgs, &serve::RateLimitArgs),
    shown: &serve::Shown,
) -> anyhow::Result<ExitCode> {
    let configure = |builder: HostBuilder| from_config.add_to(builder.watch(watch).capacity(capacity.capacity()));
    let telemetry = telemetry::start(audit.otlp_endpoint.as_deref())?;
    let (audit, limits) = (audit.open()?, rate_limits.limits());
    if let Some(addr) = http.address() {
        serve::serve_http(http, addr, configure(plugins.builder()?), (audit, limits), telemetry.tracing(), shown)?;
        return Ok(ExitCode::SUCCESS);
    }
    let host = shown.apply(load_with(plugins, configure)?)?;
    // One client on one pipe: one thread for the protocol and the calls, so that
    // a request is never handed between threads (see BENCHMARKS.md).
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")?;
    let server = toolhost::mcp::McpServer::new(host.clone())
        .with_audit(audit.clone())
        .with_rate_limits(limits.clone())
        .with_tracing(telemetry.tracing());
    runtime.block_on(async {
        let server = match http.console {
            true => serve::console_beside_stdio(http, host, server, (audit, limits)).await?,
            false => server,
        };
        server.serve_stdio().await.map_err(anyhow::Error::from)
    })?;
    Ok(ExitCode::SUCCESS)
}

/// `--disclose`'s core patterns (empty ones dropped: `--disclose` alone lists none).
fn core_patterns(core: &[String]) -> anyhow::Result<toolhost::Disclosure> {
    let core: Vec<&str> = core.iter().map(|pattern| pattern.trim()).filter(|pattern| !pattern.is_empty()).collect();
    toolhost::Disclosure::new(&core).context("--disclose")
}

/// The argument text `toolhost call` was given: as it is, or from stdin (`-`), or
/// from a file (`@FILE`).
fn argument_text(given: String) -> anyhow::Result<String> {
    if given == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .context("cannot read the arguments from stdin")?;
        return Ok(text);
    }
    match given.strip_prefix('@') {
        Some(file) => std::fs::read_to_string(file).with_context(|| format!("cannot read the arguments from {file}")),
        None => Ok(given),
    }
}

/// `toolhost pull`, then `toolhost prepare` of the folder pulled into.
fn pull(
    reference: Option<&str>,
    plugins: PathBuf,
    keys: &[PathBuf],
    registry: &oci::RegistryArgs,
) -> anyhow::Result<ExitCode> {
    let pulled = oci::pull(reference, &plugins, keys, registry)?;
    let secrets = secret::SecretsDir::default();
    prepare(&Plugins { plugins, shared_cache: None, compiler: None, embedding_model: None, secrets })?;
    Ok(pulled)
}

/// `toolhost prepare`: the optimized code of every component into the cache.
fn prepare(plugins: &Plugins) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        plugins.shared_cache.is_none(),
        "--shared-cache is read only: prepare it as its owner, with TOOLHOST_CACHE_DIR naming it instead"
    );
    // Held until this process ends; a background prepare that finds it held has
    // nothing to do (commands run in a loop would otherwise start one each).
    let _alone = match std::env::var_os(BACKGROUND_PREPARE) {
        Some(_) => match prepare_lock() {
            Ok(lock) => lock,
            Err(AnotherPrepareRuns) => return Ok(ExitCode::SUCCESS),
        },
        None => None,
    };
    let host = load_with(plugins, |builder| builder.compiler(Compiler::Optimizing))?;
    let components = host.load_report().components;
    let compiled = components.iter().filter(|component| component.compiled).count();
    println!(
        "optimized code in the cache for {} component(s): {compiled} compiled now, {} there already",
        components.len(),
        components.len() - compiled
    );
    Ok(ExitCode::SUCCESS)
}

/// Set in the environment of a `toolhost prepare` a command starts in the background.
const BACKGROUND_PREPARE: &str = "TOOLHOST_BACKGROUND_PREPARE";

/// Another process holds the cache folder's `prepare.lock`.
struct AnotherPrepareRuns;

/// The cache folder's `prepare.lock`, locked for this process (`None` when it cannot
/// be made: no reason not to prepare).
fn prepare_lock() -> Result<Option<std::fs::File>, AnotherPrepareRuns> {
    let dir = HostBuilder::default_cache_dir();
    let opened = std::fs::create_dir_all(&dir).and_then(|()| {
        std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(dir.join("prepare.lock"))
    });
    let Ok(file) = opened else { return Ok(None) };
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Err(AnotherPrepareRuns),
        Err(std::fs::TryLockError::Error(_)) => Ok(None),
    }
}

/// Loads a plugin folder for a command that runs once and ends (see [`OneShot`]),
/// with a progress bar on a terminal, and prints the warnings.
fn load(plugins: &Plugins) -> anyhow::Result<OneShot> {
    let host = load_with(plugins, |builder| builder)?;
    Ok(OneShot { host, plugins: plugins.plugins.clone(), writable_cache: plugins.shared_cache.is_none() })
}

/// The host of a command that runs once and ends (`list`, `call`, …). Its large
/// components start on baseline code while the optimizing compiler works in the
/// background; when the command ends first, the rest of that work is handed to a
/// `toolhost prepare` of its own, at the lowest priority, so that the command exits
/// at once and the next start serves optimized code (TOOLHOST_NO_PREPARE=1: not).
struct OneShot {
    host: Host,
    plugins: PathBuf,
    writable_cache: bool,
}

impl std::ops::Deref for OneShot {
    type Target = Host;

    fn deref(&self) -> &Host {
        &self.host
    }
}

impl Drop for OneShot {
    fn drop(&mut self) {
        let unoptimized = self.host.load_report().components.iter().any(|component| component.baseline);
        if unoptimized && self.writable_cache && std::env::var_os("TOOLHOST_NO_PREPARE").is_none() {
            prepare_in_background(&self.plugins);
        }
    }
}

/// Starts `nice toolhost prepare --plugins DIR`, detached: it outlives this process,
/// and nothing waits on its output. It does nothing while another such prepare of
/// the same cache runs.
#[cfg(unix)]
fn prepare_in_background(plugins: &Path) {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let Ok(toolhost) = std::env::current_exe() else { return };
    let started = Command::new("nice")
        .args(["-n", "19"])
        .arg(toolhost)
        .args(["prepare", "--plugins"])
        .arg(plugins)
        .env(BACKGROUND_PREPARE, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn();
    match started {
        Ok(_) => tracing::info!("optimizing {} in the background (toolhost prepare)", plugins.display()),
        Err(error) => tracing::info!("cannot optimize {} in the background: {error}", plugins.display()),
    }
}

/// Nothing here: a detached process of the lowest priority is made on unix only.
#[cfg(not(unix))]
fn prepare_in_background(_plugins: &Path) {}

/// [`load`], with more settings made by `configure`.
fn load_with(plugins: &Plugins, configure: impl FnOnce(HostBuilder) -> HostBuilder) -> anyhow::Result<Host> {
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template("loading {pos}/{len} components {wide_bar} {msg}")
                .expect("valid template"),
        );
        bar
    });
    let mut builder = configure(plugins.builder()?);
    if let Some(bar) = bar.clone() {
        builder = builder.on_progress(move |done, total, name| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            bar.set_message(name.to_string());
        });
    }
    let host = builder.build()?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    for warning in &host.load_report().warnings {
        eprintln!("warning: {warning}");
    }
    Ok(host)
}

fn check(file: &Path) -> anyhow::Result<ExitCode> {
    let host = Host::builder().component_file(file).build()?;
    let report = host.load_report();
    for warning in &report.warnings {
        println!("warning: {warning}");
    }
    if host.tools().is_empty() {
        println!("{}: no usable tools", file.display());
        return Ok(ExitCode::FAILURE);
    }
    print_tools(&host.tools());
    Ok(ExitCode::SUCCESS)
}

/// One block per tool: name, component (marked when the tool is an MCP server's or a
/// REST API's, which the host does not sandbox), parameters, first paragraph of the
/// description.
fn print_tools(tools: &[ToolSpec]) {
    for tool in tools {
        let origin = match &tool.origin {
            ToolOrigin::RestApi(operation) => format!(", REST API: not sandboxed, {}", operation.remote_name),
            _ if !tool.sandboxed() => ", MCP server: not sandboxed".to_string(),
            _ => String::new(),
        };
        println!("{}  [{}{origin}]", tool.name, tool.component);
        println!("    {}", tool.signature());
        let summary: Vec<&str> = tool.description.lines().take_while(|l| !l.trim().is_empty()).collect();
        if !summary.is_empty() {
            println!("    {}", summary.join(" "));
        }
    }
    println!("{} {}", tools.len(), if tools.len() == 1 { "tool" } else { "tools" });
}

/// Where each pulled component came from, and whether its signature was checked.
fn print_provenance(report: &toolhost::LoadReport) {
    for component in &report.components {
        if let Provenance::Pulled { reference, signed_by } = &component.provenance {
            let verified = if signed_by.is_empty() {
                "UNVERIFIED: pulled with no key, its signature was not checked".to_string()
            } else {
                format!("signed by {}", signed_by.join(", "))
            };
            println!("{}: pulled from {reference}, {verified}", component.name);
        }
    }
}
