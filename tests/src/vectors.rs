//! Test vectors shared by more than one crate's tests.

/// Spellings of a loopback address as a URL host that all reach 127.0.0.1: dotted, short,
/// decimal, hexadecimal, octal and IPv4-mapped. The URL policy refuses each under the
/// public-only rule, and the fetcher refuses each before connecting.
pub const LOOPBACK_HOSTS_OF_127_0_0_1: [&str; 6] =
    ["127.0.0.1", "127.1", "2130706433", "0x7f000001", "017700000001", "[::ffff:127.0.0.1]"];

/// The IPv6 loopback as a URL host (a listener of its own: the machine may lack it).
pub const LOOPBACK_HOST_IPV6: &str = "[::1]";

/// Target URLs the public-only rule refuses besides the loopback spellings above: the
/// unspecified address, the cloud metadata address, shared (CGNAT), unique-local, private,
/// link-local, NAT64 and 6to4 forms of loopback, multicast, broadcast and documentation
/// ranges, `localhost` names, and the Lambda Runtime API (127.0.0.1:9001).
pub const NOT_PUBLIC_URLS: [&str; 18] = [
    "http://0.0.0.0/",
    "http://169.254.169.254/latest/meta-data/",
    "http://100.64.0.1/",
    "http://[fd00::1]/",
    "http://10.0.0.1/",
    "http://192.168.1.1/",
    "http://172.31.255.255/",
    "http://[fe80::1]/",
    "http://[64:ff9b::7f00:1]/",
    "http://[2002:7f00:1::]/",
    "http://[::]/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "http://[2001:db8::1]/",
    "http://localhost:9001/",
    "http://api.localhost/",
    "http://LOCALHOST./",
    "http://127.0.0.1:9001/2018-06-01/runtime/invocation/next",
];
