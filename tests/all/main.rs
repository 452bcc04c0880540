//! The integration tests: one binary, one module per area, over real components built
//! by `scripts/build-guests.sh` and run through real wasmtime. A new area is a new
//! module here; cargo finds this binary without being told.
//!
//! The one other binary, `tests/memory`, measures the process's resident memory and
//! so must run alone.
mod approval;
mod architecture;
mod asks;
mod bfcl;
mod bfcl_rules;
mod cancel;
mod capacity;
mod cli;
mod common;
mod compilers;
mod console;
mod content;
mod disclosure;
mod example_tools;
mod extract;
mod hostile;
mod http;
mod languages;
mod live;
mod loading;
mod lockfile;
mod manifests;
mod mcp;
mod mcp_servers;
mod metrics;
mod model_replies;
mod network;
mod nginx;
mod oauth;
mod oci;
mod offers;
mod policy;
mod prewarm;
mod process;
mod replicas;
mod reports;
mod rest_apis;
mod rig;
mod sandbox;
mod search;
mod secrets;
mod self_repair;
mod shaping;
mod spans;
mod tasks;
mod test_guests;
mod trust;
