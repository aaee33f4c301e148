//! `vet_target_url` on arbitrary text, under both address rules: closed-form refusals; an
//! accepted URL is http(s), credential-free, at most 2,048 bytes, re-vets to itself
//! (idempotent), and under the production rule its host is never an address the standard
//! library calls loopback, private, link-local, unspecified, multicast, documentation or
//! CGNAT (nor a mapped, NAT64 or 6to4 form of one), nor `localhost` / `*.localhost`; a host
//! name it lets through is no IP literal by the standard library's parser either. The only
//! difference between the rules is the address rule.
//!
//! Input: the submitted URL (UTF-8, lossily).

use std::net::IpAddr;

use payability_core::policy::{AddressRule, MAX_URL_BYTES, PolicyRefusal, vet_target_url};
use url::Host;

use crate::oracle::std_says_not_public;

/// A little over the URL cap (replacement characters may lengthen lossy text).
pub const MAX_LEN: usize = MAX_URL_BYTES + 64;

pub fn run(data: &[u8]) {
    let submitted = String::from_utf8_lossy(data);
    let public = vet_target_url(&submitted, AddressRule::PublicOnly);
    let private = vet_target_url(&submitted, AddressRule::AllowPrivate);
    if submitted.len() > MAX_URL_BYTES {
        assert_eq!(public, Err(PolicyRefusal::UrlTooLong));
    }
    match (&public, &private) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(PolicyRefusal::AddressNotPublic), Ok(_)) => {}
        (Err(a), Err(b)) => assert_eq!(a, b, "the rules differ beyond the address rule"),
        _ => panic!("the rules disagree: {public:?} / {private:?}"),
    }
    if let Ok(vetted) = &private {
        let url = vetted.url();
        assert!(vetted.as_str().len() <= MAX_URL_BYTES);
        assert!(matches!(url.scheme(), "http" | "https"));
        assert!(url.username().is_empty() && url.password().is_none());
        let host = url.host().expect("an accepted URL has a host");
        let again = vet_target_url(vetted.as_str(), AddressRule::AllowPrivate);
        assert_eq!(again.as_ref(), Ok(vetted), "vetting is not idempotent");
        assert_eq!(again.as_ref().map(|t| t.as_str()), Ok(vetted.as_str()));
        if let Host::Domain(name) = &host {
            assert!(name.parse::<IpAddr>().is_err(), "an IP literal passed as a name");
        }
        if public.is_ok() {
            let again = vet_target_url(vetted.as_str(), AddressRule::PublicOnly);
            assert_eq!(again.as_ref(), Ok(vetted));
            match host {
                Host::Ipv4(ip) => assert!(!std_says_not_public(IpAddr::V4(ip)), "{ip}"),
                Host::Ipv6(ip) => assert!(!std_says_not_public(IpAddr::V6(ip)), "{ip}"),
                Host::Domain(name) => {
                    let name = name.trim_end_matches('.').to_ascii_lowercase();
                    assert!(name != "localhost" && !name.ends_with(".localhost"), "{name}");
                }
            }
        }
    }
    for refusal in [&public, &private].into_iter().filter_map(|r| r.as_ref().err()) {
        assert!(PolicyRefusal::ALL.contains(refusal));
    }
}
