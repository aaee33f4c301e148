#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| payability_fuzz::targets::mcp_headers::run(data));
