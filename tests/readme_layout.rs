//! The README's layout table ("What is here") against the tree: every module of `src/` (each
//! top-level file and folder, and each folder inside `src/exec/`) is named in it, and every
//! `src/` path it names exists. Issue 20 asks that the table match the tree; a move that
//! forgets the README fails here.

use std::path::Path;

/// The rows of the table under "## What is here": the lines from its header to the first
/// blank line.
fn layout_table(readme: &str) -> Vec<&str> {
    readme
        .lines()
        .skip_while(|l| !l.starts_with("## What is here"))
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .collect()
}

/// The `src/...` paths written in backquotes in `rows`.
fn named_paths(rows: &[&str]) -> Vec<String> {
    rows.iter()
        .flat_map(|row| row.split('`').skip(1).step_by(2))
        .filter(|p| p.starts_with("src/"))
        .map(|p| p.trim_end_matches('/').to_string())
        .collect()
}

/// The modules a newcomer should find in the table: `src/X` for each entry of src/ (main.rs
/// and lib.rs, the crate's roots, apart), and `src/exec/Y/` for each folder in src/exec/.
fn modules(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let list = |dir: &Path| -> Vec<(String, bool)> {
        let mut entries: Vec<(String, bool)> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| {
                let is_dir = e.path().is_dir();
                (e.file_name().to_string_lossy().into_owned(), is_dir)
            })
            .collect();
        entries.sort();
        entries
    };
    for (name, _) in list(&root.join("src")) {
        if name != "main.rs" && name != "lib.rs" {
            out.push(format!("src/{name}"));
        }
    }
    for (name, is_dir) in list(&root.join("src/exec")) {
        if is_dir {
            out.push(format!("src/exec/{name}"));
        }
    }
    out
}

#[test]
fn the_readme_layout_table_names_every_module_and_only_paths_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let rows = layout_table(&readme);
    assert!(rows.len() > 3, "no layout table under '## What is here'");
    let named = named_paths(&rows);
    let missing: Vec<String> = modules(root)
        .into_iter()
        .filter(|m| !named.iter().any(|n| n == m))
        .collect();
    assert!(
        missing.is_empty(),
        "README.md's layout table ('What is here') does not name {missing:?}: add a row (or \
         a path to a row) that says what each holds"
    );
    let gone: Vec<&String> = named.iter().filter(|p| !root.join(p).exists()).collect();
    assert!(
        gone.is_empty(),
        "README.md's layout table names paths that are not in the tree: {gone:?}"
    );
}

#[test]
fn the_table_parser_reads_backquoted_paths_of_the_rows() {
    let readme = "# x\n\n## What is here\n\n| a | b |\n|---|---|\n| grammar | `src/cli/` and \
                  `src/error.rs` | `tests/x.rs` |\n\nafter `src/no.rs`\n";
    let rows = layout_table(readme);
    assert_eq!(rows.len(), 3);
    assert_eq!(named_paths(&rows), ["src/cli", "src/error.rs"]);
}
