#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| payability_fuzz::targets::agent_call::run(data));
