//! The `toolhost` command: a thin face over the library.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use toolhost::{Host, ToolSpec};

/// Run an AI agent's tools as sandboxed WebAssembly components.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Lists every tool in the plugin folder with its parameters and description.
    List {
        /// The plugin folder.
        #[arg(long, env = "TOOLHOST_PLUGINS", default_value = "plugins")]
        plugins: PathBuf,
    },
    /// Calls a tool and prints its result as JSON (or the corrective message).
    Call {
        /// The plugin folder.
        #[arg(long, env = "TOOLHOST_PLUGINS", default_value = "plugins")]
        plugins: PathBuf,
        /// The tool's name, as a model would send it.
        name: String,
        /// The arguments, as a JSON object.
        #[arg(default_value = "{}")]
        arguments: String,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TOOLHOST_LOG").unwrap_or_else(|_| "error".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::List { plugins } => {
            let host = load(&plugins)?;
            print_table(&host.tools().into_iter().cloned().collect::<Vec<_>>());
            Ok(ExitCode::SUCCESS)
        }
        Command::Call { plugins, name, arguments } => {
            let arguments: serde_json::Value =
                serde_json::from_str(&arguments).context("the arguments are not valid JSON")?;
            let host = load(&plugins)?;
            let dispatch = host.dispatch(&name, &arguments);
            if let (Some(from), Some(tool)) = (&dispatch.repaired_from, &dispatch.tool) {
                eprintln!("repaired tool name '{from}' -> '{tool}'");
            }
            match dispatch.result {
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
    }
}

fn load(plugins: &PathBuf) -> anyhow::Result<Host> {
    let host = Host::builder().plugin_dir(plugins).build()?;
    for warning in &host.load_report().warnings {
        eprintln!("warning: {warning}");
    }
    Ok(host)
}

/// Prints one block per tool: name, component, parameters, description.
fn print_table(tools: &[ToolSpec]) {
    for tool in tools {
        let params: Vec<String> = tool
            .params
            .iter()
            .map(|p| format!("{}{}: {}", p.name, if p.required() { "" } else { "?" }, p.ty))
            .collect();
        let result = tool.result.as_ref().map(|r| format!(" -> {r}")).unwrap_or_default();
        println!("{}  [{}]", tool.name, tool.component);
        println!("    ({}){result}", params.join(", "));
        let summary: Vec<&str> = tool.description.lines().take_while(|l| !l.trim().is_empty()).collect();
        if !summary.is_empty() {
            println!("    {}", summary.join(" "));
        }
    }
    println!("{} tools", tools.len());
}
