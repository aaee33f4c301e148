//! Replays every checked-in corpus file and regression input of every target through its
//! checks (no libFuzzer needed): `cargo test --manifest-path fuzz/Cargo.toml`.

use std::path::Path;

#[test]
fn every_corpus_and_regression_input_holds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut replayed = 0;
    for (name, run, max_len) in payability_fuzz::TARGETS {
        for dir in [root.join("corpus").join(name), root.join("regressions").join(name)] {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries {
                let path = entry.unwrap().path();
                let data = std::fs::read(&path).unwrap();
                assert!(data.len() <= *max_len, "{} is over {name}'s max_len", path.display());
                run(&data);
                replayed += 1;
            }
        }
    }
    eprintln!("replayed {replayed} inputs");
}

#[test]
fn scripts_fuzz_runs_every_target_with_its_max_len() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/fuzz");
    let script = std::fs::read_to_string(script).unwrap();
    for (name, _, max_len) in payability_fuzz::TARGETS {
        let entry = format!("[{name}]={max_len} ");
        assert!(script.contains(&entry), "scripts/fuzz does not say {entry}");
    }
    let listed = script.matches("]=").count();
    assert_eq!(listed, payability_fuzz::TARGETS.len(), "scripts/fuzz lists other targets");
}
