//! Name resolution that refuses non-public answers and hands reqwest only vetted addresses,
//! so the connection goes exactly where the policy allowed (no second lookup).

use std::net::SocketAddr;

use payability_core::policy::{AddressRule, address_allowed};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Why a name was refused after resolution (closed form; never names the host).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResolveRefusal {
    /// The name resolved to no address.
    NoAddress,
    /// At least one resolved address is not allowed under the address rule.
    AddressNotPublic,
}

impl std::fmt::Display for ResolveRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::NoAddress => "the target name resolved to no address",
            Self::AddressNotPublic => "the target name resolved to a non-public address",
        })
    }
}

impl std::error::Error for ResolveRefusal {}

/// Vets resolved addresses: every one must be allowed, else the whole answer is refused
/// (a mix of public and private answers is a rebinding attempt).
pub fn vet_resolved(
    addrs: Vec<SocketAddr>,
    rule: AddressRule,
) -> Result<Vec<SocketAddr>, ResolveRefusal> {
    if addrs.is_empty() {
        return Err(ResolveRefusal::NoAddress);
    }
    if addrs.iter().all(|a| address_allowed(a.ip(), rule)) {
        Ok(addrs)
    } else {
        Err(ResolveRefusal::AddressNotPublic)
    }
}

/// The system resolver (getaddrinfo through tokio), filtered by [`vet_resolved`].
#[derive(Debug, Clone, Copy)]
pub struct VettingResolver {
    /// The address rule applied to every answer.
    pub rule: AddressRule,
}

impl Resolve for VettingResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let rule = self.rule;
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((name.as_str(), 0))
                .await
                .map_err(|_| ResolveRefusal::NoAddress)?
                .collect();
            let vetted = vet_resolved(found, rule)?;
            Ok(Box::new(vetted.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addrs(ips: &[&str]) -> Vec<SocketAddr> {
        ips.iter().map(|ip| SocketAddr::new(ip.parse().unwrap(), 443)).collect()
    }

    #[test]
    fn resolved_answers_are_vetted_as_a_whole() {
        let public = AddressRule::PublicOnly;
        let vectors: [(&[&str], AddressRule, Result<usize, ResolveRefusal>); 9] = [
            (&["93.184.215.14"], public, Ok(1)),
            (&["93.184.215.14", "2606:2800:21f:cb07::1"], public, Ok(2)),
            (&[], public, Err(ResolveRefusal::NoAddress)),
            (&["127.0.0.1"], public, Err(ResolveRefusal::AddressNotPublic)),
            (&["93.184.215.14", "10.0.0.1"], public, Err(ResolveRefusal::AddressNotPublic)),
            (&["169.254.169.254"], public, Err(ResolveRefusal::AddressNotPublic)),
            (&["::ffff:127.0.0.1"], public, Err(ResolveRefusal::AddressNotPublic)),
            (&["fd00::1"], public, Err(ResolveRefusal::AddressNotPublic)),
            (&["127.0.0.1", "::1"], AddressRule::AllowPrivate, Ok(2)),
        ];
        for (ips, rule, want) in vectors {
            assert_eq!(vet_resolved(addrs(ips), rule).map(|v| v.len()), want, "{ips:?}");
        }
    }
}
