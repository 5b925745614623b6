//! Golden test for `-I`: every `*.hex` IDENTIFY dump in the shared corpus, read with the
//! `--Istdin` reader and rendered by the library, must give byte for byte the stdout that
//! Debian's hdparm 9.65 gave for it (`<name>.hdparm.txt`, recorded with
//! `hdparm --Istdin < <name>.hex`).
//!
//! The corpus lives outside the repository (see [`corpus_dir`]); when it is missing the test
//! says so and passes, unless `HDPARM_RS_REQUIRE_ALL=1`, where it fails.

use std::fs;
use std::path::PathBuf;

/// `$HDPARM_RS_IDENTIFY_CORPUS`, else `../shared/identify` beside the crate (the main checkout),
/// else `../../shared/identify` (a worktree one level deeper).
fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("HDPARM_RS_IDENTIFY_CORPUS") {
        return PathBuf::from(dir);
    }
    let near = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/identify"));
    let far = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/identify"
    ));
    if near.is_dir() || !far.is_dir() {
        near
    } else {
        far
    }
}

fn require_all() -> bool {
    std::env::var("HDPARM_RS_REQUIRE_ALL").is_ok_and(|v| v == "1")
}

/// The first differing line, shown with its number, for the failure message.
fn first_diff(expected: &[u8], got: &[u8]) -> String {
    let e = String::from_utf8_lossy(expected);
    let g = String::from_utf8_lossy(got);
    for (n, (a, b)) in e.split('\n').zip(g.split('\n')).enumerate() {
        if a != b {
            return format!("line {}:\n  hdparm: {a:?}\n  ours:   {b:?}", n + 1);
        }
    }
    format!(
        "lengths differ: hdparm {} bytes, ours {} bytes",
        expected.len(),
        got.len()
    )
}

#[test]
fn istdin_output_matches_hdparm_for_every_dump() {
    let dir = corpus_dir();
    let entries = match fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) => {
            let msg = format!(
                "identify corpus {} not readable ({e}): golden test skipped",
                dir.display()
            );
            assert!(!require_all(), "{msg}");
            eprintln!("{msg}");
            return;
        }
    };
    let mut hex_files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "hex"))
        .collect();
    hex_files.sort();
    assert!(!hex_files.is_empty(), "no *.hex files in {}", dir.display());

    let mut failures = Vec::new();
    for hex in &hex_files {
        let expected_path = hex.with_extension("hdparm.txt");
        let input = fs::read(hex).unwrap_or_else(|e| panic!("{}: {e}", hex.display()));
        let expected =
            fs::read(&expected_path).unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
        let mut out = Vec::new();
        let mut err = Vec::new();
        let status = hdparm::report::identify::run_istdin(&input, &mut out, &mut err);
        let name = hex
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if status != 0 || !err.is_empty() {
            failures.push(format!(
                "{name}: status {status}, stderr {:?}",
                String::from_utf8_lossy(&err)
            ));
        } else if out != expected {
            failures.push(format!("{name}: {}", first_diff(&expected, &out)));
        }
    }
    let total = hex_files.len();
    eprintln!(
        "identify golden: {} of {total} identical",
        total - failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {total} differ; first: {}",
        failures.len(),
        failures[0]
    );
}
