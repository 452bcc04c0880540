//! Reaching a registry: the client for a reference (HTTPS, plain HTTP only to a
//! loopback registry or when asked), references parsed, and the file name a
//! reference gives a component.

use oci_client::client::{ClientConfig, ClientProtocol};
use oci_client::{Client, Reference};

use super::{RegistryError, RegistryOptions};

/// A client for `reference`'s registry, over the protocol `protocol_for` gives.
pub(super) fn client(reference: &Reference, options: &RegistryOptions) -> Client {
    Client::new(ClientConfig {
        protocol: protocol_for(reference, options.insecure),
        connect_timeout: Some(std::time::Duration::from_secs(10)),
        read_timeout: Some(std::time::Duration::from_secs(60)),
        ..ClientConfig::default()
    })
}

/// How to reach `reference`'s registry: HTTPS, but plain HTTP to a loopback registry
/// (or any, with `insecure`).
pub(super) fn protocol_for(reference: &Reference, insecure: bool) -> ClientProtocol {
    let registry = reference.resolve_registry().to_string();
    if insecure {
        ClientProtocol::Http
    } else if is_loopback(&registry) {
        ClientProtocol::HttpsExcept(vec![registry])
    } else {
        ClientProtocol::Https
    }
}

/// Whether `registry` (`host[:port]`) is on this machine's loopback interface.
fn is_loopback(registry: &str) -> bool {
    let host = match registry.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => registry.rsplit_once(':').map_or(registry, |(host, _)| host),
    };
    host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

pub(super) fn parse_reference(reference: &str) -> Result<Reference, RegistryError> {
    reference
        .parse::<Reference>()
        .map_err(|error| RegistryError::Reference { reference: reference.to_string(), reason: error.to_string() })
}

/// The component's name: the repository's last part, which must make a plain file name.
pub(super) fn name_of(parsed: &Reference, reference: &str) -> Result<String, RegistryError> {
    let name = parsed.repository().rsplit('/').next().unwrap_or_default();
    let plain = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    if !plain || name.starts_with('.') {
        let reason = format!("its repository's last part '{name}' cannot name a file");
        return Err(RegistryError::Reference { reference: reference.to_string(), reason });
    }
    Ok(name.to_string())
}
