//! One read of the system's root certificates per process, shared by every outbound HTTPS
//! client: reqwest's (target fetcher, facilitator, Solana RPC, Valet, CloudFormation answer)
//! and the AWS SDK's (DynamoDB, Secrets Manager).
//!
//! Left alone, reqwest reads the whole system store (on Debian the bundle and every file in
//! `/etc/ssl/certs`) again for each client it builds, and the AWS SDK once more for itself:
//! five reads before a check function's first answer, most of its cold start
//! (`scripts/cold-start`). Here the store is read the first time any client is built, and
//! every client trusts exactly those roots.

use std::env;
use std::sync::{Arc, LazyLock};

use aws_smithy_http_client::proxy::ProxyConfig;
use aws_smithy_http_client::tls::rustls_provider::CryptoMode;
use aws_smithy_http_client::tls::{Provider, TlsContext, TrustStore};
use aws_smithy_http_client::{Builder, ConnectorBuilder};
use aws_smithy_runtime_api::client::http::SharedHttpClient;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};

/// The system's root certificates, read once: those that parse as trust anchors.
static SYSTEM_ROOTS: LazyLock<SystemRoots> = LazyLock::new(SystemRoots::read);

struct SystemRoots {
    /// The anchors, for reqwest.
    store: RootCertStore,
    /// The same certificates as PEM text, for the AWS SDK (it takes custom roots as PEM only;
    /// a line of base64 per certificate: its PEM reader takes lines of any length).
    pem: String,
}

/// reqwest's TLS configuration: the system roots, aws-lc-rs, TLS 1.2 and 1.3, HTTP/1.1 offered
/// by ALPN (what reqwest builds for itself with our features). None without a root.
static REQWEST_TLS: LazyLock<Option<ClientConfig>> = LazyLock::new(reqwest_tls);

/// reqwest's client builder holding the process's one TLS configuration. Should the system
/// store yield no root, it is reqwest's own builder, whose `build()` then fails as it always
/// did.
pub fn builder() -> reqwest::ClientBuilder {
    let builder = reqwest::Client::builder();
    match REQWEST_TLS.as_ref() {
        Some(tls) => builder.tls_backend_preconfigured(tls.clone()),
        None => builder,
    }
}

/// The AWS SDK's loader for every SDK client of the service: the SDK's default HTTPS client
/// (rustls on aws-lc-rs, like reqwest's: the only crypto provider compiled in, `cargo tree -i
/// ring` prints nothing; proxy settings from the environment) trusting the shared roots.
pub fn aws_sdk_loader() -> aws_config::ConfigLoader {
    aws_config::defaults(aws_config::BehaviorVersion::latest()).http_client(aws_sdk_https())
}

impl SystemRoots {
    /// Reads the platform's certificates and keeps those that parse as trust anchors.
    fn read() -> Self {
        let mut store = RootCertStore::empty();
        let mut pem = String::new();
        for cert in platform_certificates() {
            if store.add(cert.clone()).is_ok() {
                let encoded = STANDARD.encode(cert.as_ref());
                pem.push_str("-----BEGIN CERTIFICATE-----\n");
                pem.push_str(&encoded);
                pem.push_str("\n-----END CERTIFICATE-----\n");
            }
        }
        Self { store, pem }
    }
}

/// The platform's certificates: what `SSL_CERT_FILE` and `SSL_CERT_DIR` name when either is
/// set (as every rustls client reads them); else the system bundle alone when it holds a
/// certificate (found as OpenSSL finds it: Debian's `/etc/ssl/certs/ca-certificates.crt`,
/// Amazon Linux's `/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem`), since the
/// certificate directory beside it holds the same certificates again and reading its files
/// took 4 ms of every cold start; else the bundle and the directories both.
fn platform_certificates() -> Vec<CertificateDer<'static>> {
    let overridden =
        ["SSL_CERT_FILE", "SSL_CERT_DIR"].iter().any(|name| env::var_os(name).is_some());
    let bundle = match overridden {
        true => None,
        false => openssl_probe::probe().cert_file,
    };
    let from_bundle =
        bundle.map(|file| rustls_native_certs::load_certs_from_paths(Some(&file), None));
    match from_bundle {
        Some(found) if !found.certs.is_empty() => found.certs,
        _ => rustls_native_certs::load_native_certs().certs,
    }
}

/// reqwest's configuration on the shared roots; None without a root.
fn reqwest_tls() -> Option<ClientConfig> {
    let roots = SYSTEM_ROOTS.store.clone();
    if roots.is_empty() {
        return None;
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut tls = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .ok()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    tls.alpn_protocols = vec![b"http/1.1".to_vec()];
    Some(tls)
}

/// What `aws-smithy-runtime` builds as the default HTTPS client, with the shared roots as its
/// trust store. The SDK builds a connector, and so reads the roots, when a client is
/// configured.
fn aws_sdk_https() -> SharedHttpClient {
    Builder::new().build_with_connector_fn(move |settings, components| {
        let trust = TrustStore::empty().with_native_roots(false);
        let trust = trust.with_pem_certificate(SYSTEM_ROOTS.pem.as_bytes());
        // Building a context cannot fail in this SDK version; if it ever does, the SDK's own
        // default (its own read of the store) still connects.
        let context = TlsContext::builder().with_trust_store(trust).build().unwrap_or_default();
        let mut connector = ConnectorBuilder::default()
            .tls_provider(Provider::Rustls(CryptoMode::AwsLc))
            .tls_context(context);
        connector.set_connector_settings(settings.cloned());
        if let Some(components) = components {
            connector.set_sleep_impl(components.sleep_impl());
        }
        connector.set_proxy_config(Some(ProxyConfig::from_env()));
        connector.build()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reading the bundle alone loses no root here: it holds every certificate the full
    /// platform read (bundle and directories) finds. Both reads list each certificate once,
    /// in order.
    #[test]
    fn the_bundle_alone_holds_every_root_of_the_full_read() {
        let full = rustls_native_certs::load_native_certs().certs;
        assert!(!full.is_empty(), "this machine has system roots");
        assert_eq!(platform_certificates(), full);
    }
}
