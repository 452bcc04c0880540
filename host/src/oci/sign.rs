//! Cosign signatures, on sigstore's implementation: a pulled artifact checked against
//! the keys given before anything is written, a pushed one signed in cosign's format
//! (a `sha256-DIGEST.sig` tag beside it whose layers are simple-signing payloads, the
//! signature in an annotation), and key pairs made as `cosign generate-key-pair` makes
//! them.

use std::path::Path;
use std::sync::Arc;

use oci_client::Reference;
use oci_client::client::{Config, ImageLayer};
use oci_client::manifest::{OCI_IMAGE_MEDIA_TYPE, OciImageManifest};
use oci_client::secrets::RegistryAuth;
use sigstore::cosign::constraint::{Constraint, PrivateKeySigner};
use sigstore::cosign::verification_constraint::{PublicKeyVerifier, VerificationConstraint};
use sigstore::cosign::{CosignCapabilities, SignatureLayer};
use sigstore::crypto::SigningScheme;
use sigstore::crypto::signing_key::SigStoreKeyPair;
use sigstore::registry::{Auth, OciReference};
use zeroize::Zeroizing;

use super::RegistryError;
use crate::sys::read_regular_file;

/// The largest key file read.
const MAX_KEY_BYTES: u64 = 64 * 1024;

/// The media type of a cosign signature layer (a simple-signing payload).
const SIGNATURE_MEDIA_TYPE: &str = "application/vnd.dev.cosign.simplesigning.v1+json";

/// The annotation of a signature layer holding the base64 signature of its payload.
const SIGNATURE_ANNOTATION: &str = "dev.cosignproject.cosign/signature";

/// The schemes a key pair may sign with, tried in turn (cosign's keys are P-256).
const SCHEMES: [SigningScheme; 4] = [
    SigningScheme::ECDSA_P256_SHA256_ASN1,
    SigningScheme::ECDSA_P384_SHA384_ASN1,
    SigningScheme::ECDSA_P521_SHA512_ASN1,
    SigningScheme::ED25519,
];

/// A public key that pulled artifacts must be signed with (a `cosign.pub`: PEM, ECDSA,
/// Ed25519 or RSA).
#[derive(Clone)]
pub struct VerifyingKey {
    verifier: Arc<dyn VerificationConstraint + Send + Sync>,
    id: String,
    source: String,
}

impl VerifyingKey {
    /// Reads a PEM public key from `path`.
    pub fn from_file(path: &Path) -> Result<Self, RegistryError> {
        let pem = read_regular_file(path, MAX_KEY_BYTES).map_err(|error| bad_key(path, error))?;
        Self::from_pem(&pem, &path.display().to_string())
    }

    /// A PEM public key; `source` names it in messages.
    pub fn from_pem(pem: &[u8], source: &str) -> Result<Self, RegistryError> {
        let bad = |reason: String| RegistryError::Key { key: source.to_string(), reason };
        let der = pem::parse(pem).map_err(|error| bad(format!("not a PEM public key: {error}")))?;
        let verifier = PublicKeyVerifier::try_from(pem).map_err(|error| bad(error.to_string()))?;
        Ok(VerifyingKey { verifier: Arc::new(verifier), id: key_id(der.contents()), source: source.to_string() })
    }

    /// The key's fingerprint as the lock file records it: `sha256:` of its DER form.
    pub fn id(&self) -> &str {
        &self.id
    }
}

impl std::fmt::Debug for VerifyingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerifyingKey").field("id", &self.id).field("source", &self.source).finish()
    }
}

/// A private key that pushed artifacts are signed with (a `cosign.key`, encrypted as
/// cosign encrypts it, or an unencrypted PKCS#8 PEM key).
#[derive(Clone)]
pub struct SigningKey {
    keys: Arc<SigStoreKeyPair>,
    scheme: SigningScheme,
    id: String,
}

impl SigningKey {
    /// Reads a private key from `path`; `password` opens an encrypted one (cosign reads
    /// it from `COSIGN_PASSWORD`).
    pub fn from_file(path: &Path, password: &[u8]) -> Result<Self, RegistryError> {
        let pem = Zeroizing::new(read_regular_file(path, MAX_KEY_BYTES).map_err(|error| bad_key(path, error))?);
        Self::from_pem(&pem, password, &path.display().to_string())
    }

    /// A PEM private key; `source` names it in messages.
    pub fn from_pem(pem: &[u8], password: &[u8], source: &str) -> Result<Self, RegistryError> {
        let bad = |reason: String| RegistryError::Key { key: source.to_string(), reason };
        let encrypted = std::str::from_utf8(pem).is_ok_and(|text| text.contains("ENCRYPTED"));
        let keys = if encrypted {
            SigStoreKeyPair::from_encrypted_pem(pem, password)
                .map_err(|error| bad(format!("cannot decrypt it ({error}): is COSIGN_PASSWORD its password?")))?
        } else {
            SigStoreKeyPair::from_pem(pem).map_err(|error| bad(format!("not a PEM private key: {error}")))?
        };
        let scheme = SCHEMES.into_iter().find(|scheme| keys.to_sigstore_signer(scheme).is_ok()).ok_or_else(|| {
            bad(format!("a {keys} cannot sign here: use an ECDSA (P-256, as cosign makes) or Ed25519 key"))
        })?;
        let der = keys.public_key_to_der().map_err(|error| bad(error.to_string()))?;
        Ok(SigningKey { keys: Arc::new(keys), scheme, id: key_id(&der) })
    }

    /// The fingerprint of the key's public half (as [`VerifyingKey::id`] gives it).
    pub fn id(&self) -> &str {
        &self.id
    }
}

impl std::fmt::Debug for SigningKey {
    /// Never shows the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey").field("id", &self.id).finish_non_exhaustive()
    }
}

/// A new ECDSA P-256 key pair, as `cosign generate-key-pair` makes it: the private key
/// PEM encrypted with `password` (cosign's format) and the public key PEM.
pub fn generate_key_pair(password: &[u8]) -> Result<(Zeroizing<String>, String), RegistryError> {
    let bad = |error: sigstore::errors::SigstoreError| RegistryError::Key {
        key: "a new key pair".to_string(),
        reason: error.to_string(),
    };
    let keys =
        SigningScheme::ECDSA_P256_SHA256_ASN1.create_signer().and_then(|s| s.to_sigstore_keypair()).map_err(bad)?;
    Ok((keys.private_key_to_encrypted_pem(password).map_err(bad)?, keys.public_key_to_pem().map_err(bad)?))
}

/// The fingerprints of the keys in `keys` that signed the artifact `digest` of
/// `reference`'s repository; refused when none did.
pub(super) async fn verify(
    reference: &Reference,
    shown: &str,
    digest: &str,
    keys: &[VerifyingKey],
    auth: &RegistryAuth,
    insecure: bool,
) -> Result<Vec<String>, RegistryError> {
    let mut client = cosign_client(reference, insecure)?;
    let pinned = pinned(reference, digest);
    let layers = client.trusted_signature_layers(&cosign_auth(auth), &pinned).await.map_err(|error| {
        RegistryError::Unsigned {
            reference: shown.to_string(),
            reason: format!("its signatures cannot be read: {error}"),
        }
    })?;
    if layers.is_empty() {
        let reason = "it carries no cosign signature (a `sha256-….sig` tag beside it)".to_string();
        return Err(RegistryError::Unsigned { reference: shown.to_string(), reason });
    }
    let signed_by: Vec<String> = keys
        .iter()
        .filter(|key| layers.iter().any(|layer| key.verifier.verify(layer).unwrap_or(false)))
        .map(|key| key.id.clone())
        .collect();
    if signed_by.is_empty() {
        let given: Vec<String> = keys.iter().map(|key| format!("{} ({})", key.source, key.id)).collect();
        let reason =
            format!("none of its {} signature(s) was made with the key(s) given: {}", layers.len(), given.join(", "));
        return Err(RegistryError::Unsigned { reference: shown.to_string(), reason });
    }
    Ok(signed_by)
}

/// Signs the artifact `digest` of `reference`'s repository with `key`: the signature
/// is added to the layers already at its `.sig` tag (as cosign adds them).
pub(super) async fn sign(
    client: &oci_client::Client,
    reference: &Reference,
    shown: &str,
    digest: &str,
    key: &SigningKey,
    auth: &RegistryAuth,
) -> Result<(), RegistryError> {
    let failed = |reason: String| RegistryError::Registry { reference: shown.to_string(), reason };
    let pinned = pinned(reference, digest);
    let mut layer = SignatureLayer::new_unsigned(&pinned, digest).map_err(|error| failed(error.to_string()))?;
    let signer = key.keys.to_sigstore_signer(&key.scheme).map_err(|error| failed(error.to_string()))?;
    PrivateKeySigner::new_with_signer(signer).add_constraint(&mut layer).map_err(|error| failed(error.to_string()))?;
    let Some(signature) = layer.signature else { return Err(failed("the payload was not signed".into())) };
    let annotations = [(SIGNATURE_ANNOTATION.to_string(), signature)].into();
    let signed = ImageLayer::new(layer.raw_data, SIGNATURE_MEDIA_TYPE.to_string(), Some(annotations));

    let tag = Reference::with_tag(
        reference.registry().to_string(),
        reference.repository().to_string(),
        digest.replace(':', "-") + ".sig",
    );
    // Only a tag that is not there yet starts empty: any other failure would lose the
    // signatures already made.
    let mut layers = match client.pull(&tag, auth, vec![SIGNATURE_MEDIA_TYPE]).await {
        Ok(existing) => existing.layers,
        Err(error) => match super::error::classify(error, &tag, shown) {
            RegistryError::NotFound { .. } => Vec::new(),
            other => return Err(other),
        },
    };
    if !layers.iter().any(|known| known.data == signed.data && known.annotations == signed.annotations) {
        layers.push(signed);
    }
    let config = Config::oci_v1(b"{}".to_vec(), None);
    let mut manifest = OciImageManifest::build(&layers, &config, None);
    manifest.media_type = Some(OCI_IMAGE_MEDIA_TYPE.to_string());
    client
        .push(&tag, &layers, config, auth, Some(manifest))
        .await
        .map_err(|error| super::error::classify(error, &tag, shown))?;
    Ok(())
}

/// `reference`'s repository at exactly the artifact `digest`, in sigstore's terms.
fn pinned(reference: &Reference, digest: &str) -> OciReference {
    OciReference::with_digest(reference.resolve_registry().into(), reference.repository().into(), digest.into())
}

/// sigstore's cosign client, reaching the registry as ours does.
fn cosign_client(reference: &Reference, insecure: bool) -> Result<sigstore::cosign::Client, RegistryError> {
    use oci_client::client::ClientProtocol as Ours;
    use sigstore::registry::{ClientConfig, ClientProtocol};
    let protocol = match super::client::protocol_for(reference, insecure) {
        Ours::Http => ClientProtocol::Http,
        Ours::HttpsExcept(plain) => ClientProtocol::HttpsExcept(plain),
        Ours::Https => ClientProtocol::Https,
    };
    sigstore::cosign::ClientBuilder::default()
        .with_oci_client_config(ClientConfig { protocol, ..ClientConfig::default() })
        .build()
        .map_err(|error| RegistryError::Registry { reference: reference.whole(), reason: error.to_string() })
}

fn cosign_auth(auth: &RegistryAuth) -> Auth {
    match auth {
        RegistryAuth::Basic(user, password) => Auth::Basic(user.clone(), password.clone()),
        RegistryAuth::Bearer(token) => Auth::Bearer(token.clone()),
        RegistryAuth::Anonymous => Auth::Anonymous,
    }
}

/// A public key's fingerprint: `sha256:` and the hex SHA-256 of its DER form.
fn key_id(der: &[u8]) -> String {
    crate::load::sha256_digest(der)
}

fn bad_key(path: &Path, error: impl std::fmt::Display) -> RegistryError {
    RegistryError::Key { key: path.display().to_string(), reason: format!("cannot read it: {error}") }
}
