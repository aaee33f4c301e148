//! Target-URL policy: which submitted URLs may be fetched, and which addresses a target may
//! resolve to. Every refusal is a closed-form value with a stable rule id.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use url::{Host, Url};

/// Longest submitted URL accepted, in bytes (before and after WHATWG serialisation).
pub const MAX_URL_BYTES: usize = 2048;

/// Whether non-public target addresses are allowed (only ever for local testing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressRule {
    /// Production: a target must be a public unicast address.
    PublicOnly,
    /// Local testing (the allow-private-targets setting is 1): any address may be fetched.
    AllowPrivate,
}

/// A URL that passed the policy: the WHATWG serialisation that is fetched and compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetUrl(Url);

impl TargetUrl {
    /// The called URL: exactly the string that is fetched and that `resource` must equal.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The parsed URL, for the fetcher.
    pub fn url(&self) -> &Url {
        &self.0
    }
}

/// Why a submitted URL is refused, free and before any payment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyRefusal {
    /// Longer than [`MAX_URL_BYTES`].
    UrlTooLong,
    /// Neither an http(s) URL nor written with `://`: `host:port/path`, a bare host.
    SchemeMissing,
    /// Not a URL by the WHATWG URL standard.
    UrlUnparseable,
    /// A scheme other than http or https.
    SchemeNotHttp,
    /// A username or password in the URL (an empty username with a password counts).
    CredentialsInUrl,
    /// A `#fragment`, which is never sent to the server, so no resource could equal it.
    FragmentInUrl,
    /// An IP-literal host (or `localhost`) that is not a public unicast address.
    AddressNotPublic,
}

impl PolicyRefusal {
    /// Stable rule id, published in the criteria document.
    pub fn rule(self) -> &'static str {
        match self {
            Self::UrlTooLong => "url_too_long",
            Self::SchemeMissing => "scheme_missing",
            Self::UrlUnparseable => "url_unparseable",
            Self::SchemeNotHttp => "scheme_not_http",
            Self::CredentialsInUrl => "credentials_in_url",
            Self::FragmentInUrl => "fragment_in_url",
            Self::AddressNotPublic => "address_not_public",
        }
    }

    /// Static human text for the refusal; never carries any part of the submitted URL.
    pub fn message(self) -> &'static str {
        match self {
            Self::UrlTooLong => "the URL is longer than 2048 bytes",
            Self::SchemeMissing => {
                "the URL does not start with http:// or https://: write one of them before the host"
            }
            Self::UrlUnparseable => "the URL does not parse as a WHATWG URL",
            Self::SchemeNotHttp => "the URL scheme must be http or https",
            Self::CredentialsInUrl => "the URL must not carry a username or password",
            Self::FragmentInUrl => {
                "the URL carries a #fragment, which is never sent to the server: submit it without the fragment"
            }
            Self::AddressNotPublic => "the URL host is not a public unicast address",
        }
    }

    /// Every refusal, for publishing the rule list.
    pub const ALL: [PolicyRefusal; 7] = [
        Self::UrlTooLong,
        Self::SchemeMissing,
        Self::UrlUnparseable,
        Self::SchemeNotHttp,
        Self::CredentialsInUrl,
        Self::FragmentInUrl,
        Self::AddressNotPublic,
    ];
}

/// Applies the target-URL policy to a submitted string.
pub fn vet_target_url(submitted: &str, rule: AddressRule) -> Result<TargetUrl, PolicyRefusal> {
    if submitted.len() > MAX_URL_BYTES {
        return Err(PolicyRefusal::UrlTooLong);
    }
    let parsed = Url::parse(submitted);
    let http = |url: &Url| matches!(url.scheme(), "http" | "https");
    if !submitted.contains("://") && !parsed.as_ref().is_ok_and(http) {
        return Err(PolicyRefusal::SchemeMissing);
    }
    let url = parsed.map_err(|_| PolicyRefusal::UrlUnparseable)?;
    if url.as_str().len() > MAX_URL_BYTES {
        return Err(PolicyRefusal::UrlTooLong);
    }
    if !http(&url) {
        return Err(PolicyRefusal::SchemeNotHttp);
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(PolicyRefusal::CredentialsInUrl);
    }
    if url.fragment().is_some() {
        return Err(PolicyRefusal::FragmentInUrl);
    }
    let host = url.host().ok_or(PolicyRefusal::UrlUnparseable)?;
    if rule == AddressRule::PublicOnly && !host_may_be_public(&host) {
        return Err(PolicyRefusal::AddressNotPublic);
    }
    Ok(TargetUrl(url))
}

/// False for IP-literal hosts that are not public and for `localhost` names (RFC 6761);
/// true for any other name, which is vetted again after resolution.
fn host_may_be_public(host: &Host<&str>) -> bool {
    match host {
        Host::Ipv4(ip) => is_public_ip(IpAddr::V4(*ip)),
        Host::Ipv6(ip) => is_public_ip(IpAddr::V6(*ip)),
        Host::Domain(name) => {
            let name = name.trim_end_matches('.');
            name != "localhost" && !name.ends_with(".localhost")
        }
    }
}

/// Whether an address may be connected to under the rule.
pub fn address_allowed(ip: IpAddr, rule: AddressRule) -> bool {
    rule == AddressRule::AllowPrivate || is_public_ip(ip)
}

/// True only for public unicast addresses (see the criteria's address rule).
pub fn is_public_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_ipv4(v4),
        IpAddr::V6(v6) => is_public_ipv6(v6),
    }
}

/// IPv4 ranges that are never public unicast (RFC 6890 special-purpose, multicast, reserved).
const NON_PUBLIC_V4: [(u32, u8); 16] = [
    (0x0000_0000, 8),  // 0.0.0.0/8 this network, unspecified
    (0x0A00_0000, 8),  // 10.0.0.0/8 private
    (0x6440_0000, 10), // 100.64.0.0/10 CGNAT
    (0x7F00_0000, 8),  // 127.0.0.0/8 loopback
    (0xA9FE_0000, 16), // 169.254.0.0/16 link-local (cloud metadata)
    (0xAC10_0000, 12), // 172.16.0.0/12 private
    (0xC000_0000, 24), // 192.0.0.0/24 IETF protocol assignments
    (0xC000_0200, 24), // 192.0.2.0/24 documentation
    (0xC058_6300, 24), // 192.88.99.0/24 6to4 relay anycast
    (0xC0A8_0000, 16), // 192.168.0.0/16 private
    (0xC612_0000, 15), // 198.18.0.0/15 benchmarking
    (0xC633_6400, 24), // 198.51.100.0/24 documentation
    (0xCB00_7100, 24), // 203.0.113.0/24 documentation
    (0xE000_0000, 4),  // 224.0.0.0/4 multicast
    (0xF000_0000, 4),  // 240.0.0.0/4 reserved, incl. broadcast
    (0xFFFF_FFFF, 32), // 255.255.255.255 broadcast (inside 240/4; listed for clarity)
];

fn is_public_ipv4(ip: Ipv4Addr) -> bool {
    let bits = u32::from(ip);
    !NON_PUBLIC_V4.iter().any(|&(net, len)| bits >> (32 - len) == net >> (32 - len))
}

/// Only global unicast (2000::/3) is public, minus special ranges; IPv4-mapped, NAT64 and
/// 6to4 forms are judged by the IPv4 address they carry.
fn is_public_ipv6(ip: Ipv6Addr) -> bool {
    let bits = u128::from(ip);
    let in_net = |net: u128, len: u32| bits >> (128 - len) == net >> (128 - len);
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_ipv4(v4);
    }
    if in_net(0x0064_ff9b_0000_0000_0000_0000_0000_0000, 96) {
        return is_public_ipv4(Ipv4Addr::from(bits as u32)); // NAT64 well-known prefix
    }
    if in_net(0x2002_0000_0000_0000_0000_0000_0000_0000, 16) {
        return is_public_ipv4(Ipv4Addr::from((bits >> 80) as u32)); // 6to4
    }
    in_net(0x2000_0000_0000_0000_0000_0000_0000_0000, 3)
        && !in_net(0x2001_0000_0000_0000_0000_0000_0000_0000, 23) // IETF protocol, Teredo
        && !in_net(0x2001_0db8_0000_0000_0000_0000_0000_0000, 32) // documentation
        && !in_net(0x3fff_0000_0000_0000_0000_0000_0000_0000, 20) // documentation
}

#[cfg(test)]
mod tests {
    use payability_tests::vectors::{
        LOOPBACK_HOST_IPV6, LOOPBACK_HOSTS_OF_127_0_0_1, NOT_PUBLIC_URLS,
    };

    use super::*;

    #[test]
    fn ssrf_bypass_forms_are_refused_free() {
        let loopback = LOOPBACK_HOSTS_OF_127_0_0_1.iter().chain([&LOOPBACK_HOST_IPV6]);
        let loopback = loopback.map(|host| format!("http://{host}/"));
        for v in loopback.chain(NOT_PUBLIC_URLS.map(str::to_owned)) {
            let v = v.as_str();
            assert_eq!(
                vet_target_url(v, AddressRule::PublicOnly),
                Err(PolicyRefusal::AddressNotPublic),
                "{v}"
            );
        }
    }

    #[test]
    fn override_lifts_only_the_address_rule() {
        let ok = vet_target_url("http://127.0.0.1:9/x", AddressRule::AllowPrivate).unwrap();
        assert_eq!(ok.as_str(), "http://127.0.0.1:9/x");
        assert_eq!(
            vet_target_url("ftp://127.0.0.1/", AddressRule::AllowPrivate),
            Err(PolicyRefusal::SchemeNotHttp)
        );
    }

    #[test]
    fn refusals_name_their_rule() {
        let long = format!("https://seller.example/{}", "a".repeat(MAX_URL_BYTES));
        let vectors: [(&str, PolicyRefusal); 20] = [
            (&long, PolicyRefusal::UrlTooLong),
            ("not a url", PolicyRefusal::SchemeMissing),
            ("localhost:3000/weather", PolicyRefusal::SchemeMissing),
            ("127.0.0.1:3000/weather", PolicyRefusal::SchemeMissing),
            ("seller.example/api", PolicyRefusal::SchemeMissing),
            ("mailto:a@seller.example", PolicyRefusal::SchemeMissing),
            ("https://", PolicyRefusal::UrlUnparseable),
            ("https://exa mple.com/", PolicyRefusal::UrlUnparseable),
            ("https:/", PolicyRefusal::SchemeMissing),
            ("http://exa mple.com/", PolicyRefusal::UrlUnparseable),
            ("ftp://seller.example/", PolicyRefusal::SchemeNotHttp),
            ("file:///etc/passwd", PolicyRefusal::SchemeNotHttp),
            ("https://user@seller.example/", PolicyRefusal::CredentialsInUrl),
            ("https://:secret@seller.example/", PolicyRefusal::CredentialsInUrl),
            ("https://u:p@seller.example/", PolicyRefusal::CredentialsInUrl),
            ("https://seller.example/x#f", PolicyRefusal::FragmentInUrl),
            ("https://seller.example/x#", PolicyRefusal::FragmentInUrl),
            ("https://seller.example/?q=1#", PolicyRefusal::FragmentInUrl),
            ("http:seller.example/x#top", PolicyRefusal::FragmentInUrl),
            ("ftp:seller.example/", PolicyRefusal::SchemeMissing),
        ];
        for (input, want) in vectors {
            assert_eq!(vet_target_url(input, AddressRule::PublicOnly), Err(want), "{input}");
        }
    }

    #[test]
    fn accepted_urls_are_serialised_the_whatwg_way() {
        let vectors = [
            ("https://Seller.Example/api", "https://seller.example/api"),
            ("HTTP://seller.example:80/a/../b", "http://seller.example/b"),
            ("https://seller.example", "https://seller.example/"),
            ("https://8.8.8.8/x", "https://8.8.8.8/x"),
            ("https://[2606:4700::1111]/", "https://[2606:4700::1111]/"),
            ("https://bücher.example/?q=1", "https://xn--bcher-kva.example/?q=1"),
            ("http:seller.example/x", "http://seller.example/x"),
        ];
        for (input, want) in vectors {
            let got = vet_target_url(input, AddressRule::PublicOnly).unwrap();
            assert_eq!(got.as_str(), want);
        }
    }

    #[test]
    fn address_classes() {
        let vectors: [(&str, bool); 14] = [
            ("8.8.8.8", true),
            ("1.1.1.1", true),
            ("100.63.255.255", true),
            ("100.128.0.0", true),
            ("172.32.0.1", true),
            ("2606:4700::1111", true),
            ("::ffff:8.8.8.8", true),
            ("64:ff9b::808:808", true),
            ("2002:808:808::1", true),
            ("2001::1", false),
            ("3fff::1", false),
            ("ff02::1", false),
            ("::127.0.0.1", false),
            ("198.18.0.1", false),
        ];
        for (ip, public) in vectors {
            assert_eq!(is_public_ip(ip.parse().unwrap()), public, "{ip}");
        }
    }
}
