//! Test vectors shared by more than one crate's tests.

/// Spellings of a loopback address as a URL host that all reach 127.0.0.1: dotted, short,
/// decimal, hexadecimal, octal and IPv4-mapped. The URL policy refuses each under the
/// public-only rule, and the fetcher refuses each before connecting.
pub const LOOPBACK_HOSTS_OF_127_0_0_1: [&str; 6] =
    ["127.0.0.1", "127.1", "2130706433", "0x7f000001", "017700000001", "[::ffff:127.0.0.1]"];

/// The IPv6 loopback as a URL host (a listener of its own: the machine may lack it).
pub const LOOPBACK_HOST_IPV6: &str = "[::1]";
