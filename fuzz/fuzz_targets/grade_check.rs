#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| payability_fuzz::targets::grade_check::run(data));
