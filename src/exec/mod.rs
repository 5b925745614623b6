//! Executes an invocation: parse errors and help texts, the file helpers, and per device
//! hdparm's fixed order of steps (reference §3), with every device processed even when an
//! earlier one failed (hdparm stops at the first; see DIFFERENCES.md).
//!
//! This is the only place that decides what is printed where for a whole run; the steps
//! themselves live in the submodules, and the exit status comes from [`crate::error::Verdict`].

use crate::cli::{self, parse::ParseError, Invocation};
use crate::error::{Error, ErrorClass, Verdict};
use std::ffi::OsString;
use std::io::Write;

/// Runs a whole command line; returns the exit status. `stdin` is read by `--Istdin` only.
///
/// Standard output is watched ([`checked`]): a report that could not be written makes the
/// status `output_failed` (74), with one line on stderr, whatever the mode; a closed pipe is a
/// quiet end, as a stop by SIGPIPE (the binary then dies of it, as hdparm does).
pub fn run(args: &[OsString], streams: crate::Streams<'_>) -> u8 {
    let crate::Streams {
        stdin,
        stdout,
        stderr,
        stderr_is_terminal,
    } = streams;
    let mut watched = checked::Checked::new(stdout);
    let status = run_modes(args, stdin, &mut watched, &mut *stderr, stderr_is_terminal);
    let _ = watched.flush();
    let class = match watched.failure() {
        None => return status,
        Some(checked::Failure::ClosedPipe) => ErrorClass::Stopped(libc::SIGPIPE),
        Some(checked::Failure::Error(errno)) => {
            let why = match errno {
                Some(errno) => crate::error::strerror(&std::io::Error::from_raw_os_error(errno)),
                None => "an I/O error".to_string(),
            };
            let program = crate::program_name(args);
            let _ = writeln!(stderr, "{program}: cannot write to standard output: {why}");
            ErrorClass::OutputFailed
        }
    };
    let mut verdict = Verdict::default();
    if let Some(earlier) = ErrorClass::of_exit_status(status) {
        verdict.record(earlier);
    }
    verdict.record(class);
    verdict.exit_status()
}

/// [`run`] without the watch on standard output: the modes.
fn run_modes(
    args: &[OsString],
    stdin: &mut dyn std::io::Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    stderr_is_terminal: bool,
) -> u8 {
    let program = crate::program_name(args);
    let parsed = cli::parse(args);
    // With --json, stdout is one JSON document whatever happens, as `smartctl -j` does: a
    // usage error, -h and -V are documents too. A command line that failed to parse has no
    // flags to ask, so the word itself is looked for (long options are case-insensitive).
    let json = wants_json(args);
    if json {
        return run_json(
            args,
            parsed,
            &program,
            stdin,
            stdout,
            stderr,
            stderr_is_terminal,
        );
    }
    for line in &parsed.stdout_lines {
        let _ = writeln!(stdout, "{line}");
    }
    for line in &parsed.stderr_lines {
        let _ = writeln!(stderr, "{line}");
    }
    let invocation = match parsed.result {
        Ok(invocation) => invocation,
        Err(error) => {
            let _ = stdout.flush();
            report_parse_error(&error, &program, stderr);
            return ErrorClass::Usage.exit_status();
        }
    };
    let verdict = Verdict::default();
    match invocation {
        Invocation::Help { extended } => {
            let _ = cli::usage::write_usage(stdout, &program, None, extended);
        }
        Invocation::Version => {
            let _ = writeln!(stdout, "{}", cli::usage::version_line(&program));
        }
        Invocation::SecurityHelp => {
            let _ = cli::usage::write_security_help(stdout);
        }
        Invocation::IdentifyStdin { json } => {
            let mut out = Output::new(json, argv_strings(args), stdout, stderr);
            identify_stdin(stdin, &mut out);
            return out.finish();
        }
        Invocation::Surface(request) => {
            return modes::surface::run_surface(&request, args, stdout, stderr, stderr_is_terminal);
        }
        Invocation::Advise(request) => {
            return modes::advise::run_advise(&request, args, stdout, stderr);
        }
        Invocation::Completions { shell } => {
            let _ = stdout.write_all(cli::complete::script(&shell).unwrap_or_default().as_bytes());
        }
        Invocation::ManPage => {
            let _ = stdout.write_all(cli::man::page().as_bytes());
        }
        Invocation::Schema => {
            let _ = stdout.write_all(crate::report::schema::document().as_bytes());
        }
        Invocation::Prometheus(request) => {
            return modes::prometheus::run_prometheus(&request, stdout, stderr);
        }
        Invocation::Experiment(request) => {
            return modes::experiment::run_experiment(
                &request,
                args,
                stdout,
                stderr,
                stderr_is_terminal,
            );
        }
        Invocation::Apply(request) => {
            return modes::apply::run_apply(&request, args, stdout, stderr);
        }
        Invocation::Devices(runs) => {
            let json = runs.iter().any(|r| r.flags.json);
            let mut out = Output::new(json, argv_strings(args), stdout, stderr);
            out.set_stderr_is_terminal(stderr_is_terminal);
            devices::run_devices(&runs, &mut out);
            prompt::forget();
            return out.finish();
        }
        Invocation::Fibmap { path } => {
            let mut out = Output::new(false, argv_strings(args), stdout, stderr);
            modes::filemap::fibmap(&path, &mut out);
            return out.finish();
        }
        Invocation::Fallocate { kib, path, dry_run } => {
            let mut out = Output::new(false, argv_strings(args), stdout, stderr);
            modes::filemap::fallocate(kib, &path, dry_run, &mut out);
            return out.finish();
        }
    }
    let _ = stdout.flush();
    verdict.exit_status()
}

/// Whether the command line asks for JSON: a word equal to `--json`, in any case.
fn wants_json(args: &[OsString]) -> bool {
    args.iter()
        .skip(1)
        .any(|a| a.to_string_lossy().eq_ignore_ascii_case("--json"))
}

/// [`run`] with `--json`: everything goes into one document on stdout, text only to stderr.
fn run_json(
    args: &[OsString],
    parsed: cli::parse::Parsed,
    program: &str,
    stdin: &mut dyn std::io::Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    stderr_is_terminal: bool,
) -> u8 {
    match &parsed.result {
        // These write their own documents (see each module).
        Ok(Invocation::Apply(request)) => {
            return modes::apply::run_apply(request, args, stdout, stderr)
        }
        Ok(Invocation::Advise(request)) => {
            return modes::advise::run_advise(request, args, stdout, stderr)
        }
        Ok(Invocation::Surface(request)) => {
            return modes::surface::run_surface(request, args, stdout, stderr, stderr_is_terminal)
        }
        Ok(Invocation::Experiment(request)) => {
            return modes::experiment::run_experiment(
                request,
                args,
                stdout,
                stderr,
                stderr_is_terminal,
            )
        }
        _ => {}
    }
    let mut out = Output::new(true, argv_strings(args), stdout, stderr);
    out.set_stderr_is_terminal(stderr_is_terminal);
    // The `security_password:` echo is hdparm's stdout; stdout is the document now, and the
    // message says that a password was given, not what it is.
    for line in parsed.stdout_lines.iter().chain(&parsed.stderr_lines) {
        if line.starts_with("security_password:") {
            out.note("security_password: given on the command line (not shown)");
        } else {
            out.note(line);
        }
    }
    let invocation = match parsed.result {
        Ok(invocation) => invocation,
        Err(error) => {
            // hdparm's text (the usage with its clue...) still goes to stderr; the message
            // says in one line what was wrong.
            let mut text = Vec::new();
            report_parse_error(&error, program, &mut text);
            let text = String::from_utf8_lossy(&text).into_owned();
            out.error_with_text(&Error::usage(parse_error_line(&error, program)), &text);
            return out.finish();
        }
    };
    match invocation {
        Invocation::Help { extended } => {
            let mut text = Vec::new();
            let _ = cli::usage::write_usage(&mut text, program, None, extended);
            out.help(&String::from_utf8_lossy(&text));
        }
        Invocation::SecurityHelp => {
            let mut text = Vec::new();
            let _ = cli::usage::write_security_help(&mut text);
            out.help(&String::from_utf8_lossy(&text));
        }
        // The version is the document's `hdparm_rs.version`.
        Invocation::Version => {}
        Invocation::IdentifyStdin { .. } => identify_stdin(stdin, &mut out),
        Invocation::Devices(runs) => {
            let runs = quiet::loud_for_json(args, runs);
            devices::run_devices(&runs, &mut out);
            prompt::forget();
        }
        // Their output is a format of its own, not JSON.
        Invocation::Prometheus(_)
        | Invocation::Completions { .. }
        | Invocation::ManPage
        | Invocation::Schema => out.error(&Error::usage(
            "--prometheus and --generate write their own formats; --json does not apply to them",
        )),
        Invocation::Fibmap { path } => modes::filemap::fibmap(&path, &mut out),
        Invocation::Fallocate { kib, path, dry_run } => {
            modes::filemap::fallocate(kib, &path, dry_run, &mut out)
        }
        // Handled before the document is begun (they write their own).
        Invocation::Apply(_)
        | Invocation::Experiment(_)
        | Invocation::Advise(_)
        | Invocation::Surface(_) => {}
    }
    out.finish()
}

/// `--Istdin`: reads standard input and decodes it.
fn identify_stdin(stdin: &mut dyn std::io::Read, out: &mut Output) {
    match crate::device::files::read_all(stdin) {
        Ok(input) => steps::identify_stdin(&input, out),
        Err(e) => out.error(&Error::os(ErrorClass::Failed, "stdin", &e)),
    }
}

/// One line saying what a parse error was, for JSON's `messages` (the text hdparm prints,
/// the usage with its clue, is several lines and goes to stderr).
fn parse_error_line(error: &ParseError, program: &str) -> String {
    match error {
        ParseError::Usage { clue } => {
            format!(
                "bad command line (hdparm's usage clue={clue}); `{program} -h` lists the options"
            )
        }
        ParseError::Message(text) => text.trim().to_string(),
        ParseError::MessageThenUsage { message, clue } => {
            format!("{} (hdparm's usage clue={clue})", message.trim())
        }
        ParseError::SecurityHelp => {
            "bad --security-mode or --user-master letter (the security help is on stderr)"
                .to_string()
        }
    }
}

/// Prints a parse error the way hdparm does.
fn report_parse_error(error: &ParseError, program: &str, stderr: &mut dyn Write) {
    match error {
        ParseError::Usage { clue } => {
            let _ = cli::usage::write_usage(stderr, program, Some(*clue), false);
        }
        ParseError::Message(text) => {
            let _ = writeln!(stderr, "{text}");
        }
        ParseError::MessageThenUsage { message, clue } => {
            let _ = writeln!(stderr, "{message}");
            let _ = cli::usage::write_usage(stderr, program, Some(*clue), false);
        }
        ParseError::SecurityHelp => {
            let _ = cli::usage::write_security_help(stderr);
        }
    }
}

/// argv as strings, for the JSON envelope: the passwords redacted.
fn argv_strings(args: &[OsString]) -> Vec<String> {
    cli::parse::redacted_argv(args)
}

// The executor: the per-device order, the guards, the output, the stop.
mod checked;
mod devices;
mod guards;
mod identify_cache;
mod lost;
mod output;
mod prompt;
mod quiet;
mod steps;
mod stop;
// What the steps need from a device, and its two implementations (the real device, the
// dry-run recorder).
mod access;
// The reads timed against the real clock, around the pure loops of `crate::timing`.
pub mod measure;
// Our modes beside hdparm's per-device order (--apply, --advise, --surface, --experiment,
// --prometheus, the file helpers).
// Crate-visible for the schema, which derives their documents (report::schema).
pub(crate) mod modes;
// The test doubles: the library's tests, and tests/ and fuzz/ with the `doubles` feature.
#[cfg(any(test, feature = "doubles"))]
#[doc(hidden)]
pub mod doubles;

pub use modes::words::{run_words, WordsRun};

use output::Output;

#[cfg(test)]
mod tests {
    use super::run;
    use crate::ata::command::op;
    use crate::exec::doubles::fake::{aborted, run_on, FakeDevice};
    use serde_json::Value;
    use std::ffi::OsString;

    /// Runs a command line through [`run`]; gives stdout, stderr and the exit status.
    fn run_words(words: &[&str]) -> (String, String, u8) {
        let argv: Vec<OsString> = std::iter::once("hdparm")
            .chain(words.iter().copied())
            .map(OsString::from)
            .collect();
        let (mut stdin, mut stdout, mut stderr) = (std::io::empty(), Vec::new(), Vec::new());
        let status = run(
            &argv,
            crate::Streams::new(&mut stdin, &mut stdout, &mut stderr),
        );
        (
            String::from_utf8_lossy(&stdout).into_owned(),
            String::from_utf8_lossy(&stderr).into_owned(),
            status,
        )
    }

    fn document(stdout: &str) -> Value {
        serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not one document: {e}: {stdout}"))
    }

    #[test]
    fn a_usage_error_under_json_is_one_document() {
        for words in [
            &["--json", "-S", "300", "/dev/x"][..],
            &["--JSON", "--jsno", "/dev/x"],
            &["--json"],
        ] {
            let (stdout, stderr, status) = run_words(words);
            let doc = document(&stdout);
            assert_eq!(status, 22, "{words:?}");
            assert_eq!(doc["hdparm_rs"]["exit_status"], 22);
            assert_eq!(doc["devices"], serde_json::json!([]));
            assert_eq!(doc["messages"][0]["severity"], "error");
            assert_eq!(doc["messages"][0]["class"], "usage");
            // hdparm's text still goes to stderr.
            assert!(!stderr.is_empty(), "{words:?}");
        }
        let (stdout, stderr, _) = run_words(&["--json", "-S", "300", "/dev/x"]);
        assert_eq!(
            document(&stdout)["messages"][0]["text"],
            "-S: bad/missing standby-interval value (0..255)"
        );
        assert!(stderr.contains(" -S: bad/missing standby-interval value (0..255)"));
    }

    #[test]
    fn without_json_a_usage_error_leaves_stdout_empty() {
        let (stdout, stderr, status) = run_words(&["-S", "300", "/dev/x"]);
        assert_eq!((stdout.as_str(), status), ("", 22));
        assert!(stderr.contains("-S: bad/missing"));
    }

    #[test]
    fn version_and_help_under_json_are_documents() {
        let (stdout, _, status) = run_words(&["--json", "-V"]);
        let doc = document(&stdout);
        assert_eq!(status, 0);
        assert_eq!(doc["hdparm_rs"]["version"], env!("CARGO_PKG_VERSION"));
        assert!(doc.get("help").is_none());
        let (stdout, _, status) = run_words(&["-h", "--json"]);
        let doc = document(&stdout);
        assert_eq!(status, 0);
        assert!(doc["help"]
            .as_str()
            .is_some_and(|h| h.contains("Usage:  hdparm  [options] [device ...]")));
        // Text is unchanged.
        let (stdout, _, _) = run_words(&["-V"]);
        assert_eq!(
            stdout,
            format!("hdparm v9.65.0 (hdparm-rs {})\n", env!("CARGO_PKG_VERSION"))
        );
    }

    fn sata() -> FakeDevice {
        let mut w = [0u16; 256];
        w[49] = 0x0200;
        w[60] = 0x1000;
        w[83] = 0x4008; // APM supported
        w[86] = 0x0008; // and enabled
        w[91] = 0x40FE;
        FakeDevice::libata_disk(w)
    }

    fn settings(doc: &Value) -> Vec<Value> {
        doc["devices"][0]["settings"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    #[test]
    fn a_failed_set_is_recorded_as_failed_and_the_others_as_done() {
        let fake = sata().on_ata(op::SETFEATURES, Some(0x42), Err(aborted(op::SETFEATURES)));
        let o = run_on(fake, "--json -B254 -M128 -S5 /dev/x");
        let doc = document(&o.stdout);
        let outcomes: Vec<(String, String)> = settings(&doc)
            .iter()
            .filter(|s| s["setting"] == "set")
            .map(|s| {
                (
                    s["option"].as_str().unwrap_or_default().to_string(),
                    s["outcome"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        let expected = [("-B", "done"), ("-M", "failed"), ("-S", "done")];
        assert_eq!(
            outcomes,
            expected.map(|(o, r)| (o.to_string(), r.to_string()))
        );
        assert_eq!(doc["devices"][0]["messages"][0]["class"], "failed");
    }

    #[test]
    fn actions_are_recorded_with_their_outcome() {
        let fake = sata()
            .on_ata(op::STANDBYNOW1, None, Err(aborted(op::STANDBYNOW1)))
            .on_ata(op::STANDBYNOW2, None, Err(aborted(op::STANDBYNOW2)));
        let o = run_on(fake, "--json -q -y -z -F -f /dev/x");
        let doc = document(&o.stdout);
        let actions = &doc["devices"][0]["actions"];
        let got: Vec<(&str, &str, &str)> = actions
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| {
                        (
                            x["action"].as_str().unwrap_or_default(),
                            x["option"].as_str().unwrap_or_default(),
                            x["outcome"].as_str().unwrap_or_default(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(
            got,
            [
                ("flush_drive_cache", "-F", "done"),
                ("flush_buffer_cache", "-f", "done"),
                ("reread_partitions", "-z", "done"),
                ("standby", "-y", "failed"),
            ]
        );
        assert_eq!(o.exit, 5);
    }

    /// The schema's validator over documents (Python's `jsonschema`, as tests/json_schema.rs
    /// uses it): the failures, or `None` when the validator is not installed.
    pub(super) fn schema_failures(docs: &[(String, Value)]) -> Option<Vec<String>> {
        use std::io::Write;
        let script = r#"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
validator = jsonschema.Draft202012Validator(schema)
for i, doc in enumerate(json.load(sys.stdin)):
    errors = list(validator.iter_errors(doc))
    if errors:
        e = jsonschema.exceptions.best_match(errors)
        where = "/".join(str(p) for p in e.absolute_path)
        print(f"{i}\tat /{where}: {e.message[:300]}")
"#;
        let schema = concat!(env!("CARGO_MANIFEST_DIR"), "/doc/hdparm-rs.schema.json");
        let mut child = std::process::Command::new("python3")
            .args(["-c", script, schema])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .ok()?;
        let all: Vec<&Value> = docs.iter().map(|(_, d)| d).collect();
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(serde_json::to_string(&all).unwrap_or_default().as_bytes());
        }
        let out = child.wait_with_output().ok()?;
        if !out.status.success() {
            let why = String::from_utf8_lossy(&out.stderr);
            assert!(
                why.contains("ModuleNotFoundError") || why.contains("No module named"),
                "the validator failed: {why}"
            );
            return None;
        }
        Some(
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(|line| {
                    let (i, why) = line.split_once('\t').unwrap_or(("", line));
                    let origin = i
                        .parse::<usize>()
                        .ok()
                        .and_then(|i| docs.get(i))
                        .map_or("?", |(o, _)| o.as_str());
                    format!("{origin}: {why}")
                })
                .collect(),
        )
    }

    /// Every JSON document the scripted devices give, over every option's example and the
    /// reports that only a drive gives (-I, --Istdout, -N, --read-sector, -H), matches the
    /// schema: the loop-device and fixture documents of tests/json_schema.rs cannot reach
    /// these.
    #[test]
    fn scripted_device_documents_match_the_schema() {
        let hex = include_bytes!("../../tests/fixtures/identify/ahci-hd.hex");
        let words = crate::ata::identify_hex::parse_identify_hex(hex).unwrap_or([0; 256]);
        type MakeDevice = fn([u16; 256]) -> FakeDevice;
        let devices: [(&str, MakeDevice); 3] = [
            ("sata", FakeDevice::libata_disk),
            ("ide", FakeDevice::ide_disk),
            ("loop", |_| FakeDevice::loop_device()),
        ];
        let slow = ["-T", "-t", "--bench", "--bench-random"];
        let mut lines: Vec<String> = crate::cli::defs::OPTIONS
            .iter()
            .filter(|d| !d.example.is_empty() && !d.example.iter().any(|w| slow.contains(w)))
            .map(|d| format!("--json {} /dev/x", d.example.join(" ")))
            .collect();
        for line in [
            "--json /dev/x",
            "--json -I /dev/x",
            "--json --Istdout /dev/x",
            "--json -i -m -c -u -d -k -n -b -Q /dev/x",
            "--json -N -H -C -A -W -B -M -R /dev/x",
            "--json --read-sector 0 /dev/x",
            "--json -q -a128 -q -W0 -q -y -Y -z /dev/x",
            "--json -B254 -M128 -S5 -P1 -D1 -K1 -L1 -A1 /dev/x",
            "--json --yes-i-know-what-i-am-doing -m8 -X udma5 -p pio4 /dev/x",
            // sectors: the actions of the sector options
            "--json --yes-i-know-what-i-am-doing -N 1000 --make-bad-sector 5 /dev/x",
            "--json --yes-i-know-what-i-am-doing --write-sector 5 /dev/x",
            "--json --please-destroy-my-drive --trim-sector-ranges 1:8 /dev/x",
            "--json --please-destroy-my-drive --set-sector-size 4096 /dev/x",
            "--json --yes-i-know-what-i-am-doing --dco-setmax 1000 /dev/x",
            "--json -J /dev/x",
            "--json -J30 --please-destroy-my-drive -E4 --idle-unload /dev/x",
        ] {
            lines.push(line.to_string());
        }
        let mut docs = Vec::new();
        for (kind, make) in devices {
            for line in &lines {
                let argv: Vec<OsString> = std::iter::once("hdparm")
                    .chain(line.split_whitespace())
                    .map(OsString::from)
                    .collect();
                if !matches!(
                    crate::cli::parse(&argv).result,
                    Ok(crate::cli::Invocation::Devices(_))
                ) {
                    continue;
                }
                let o = run_on(make(words), line);
                docs.push((format!("{kind}: {line}"), document(&o.stdout)));
            }
        }
        // The sections only a drive gives are among them.
        for key in [
            "identify",
            "identify_words",
            "max_sectors",
            "read_sector",
            "actions",
        ] {
            assert!(
                docs.iter().any(|(_, d)| d["devices"][0].get(key).is_some()),
                "no document has {key}"
            );
        }
        let Some(failures) = schema_failures(&docs) else {
            let why = "Python's jsonschema is not installed (scripts/test-all installs it)";
            assert!(
                std::env::var("HDPARM_RS_REQUIRE_ALL").as_deref() != Ok("1"),
                "{why}"
            );
            eprintln!("SKIPPED scripted_device_documents_match_the_schema: {why}");
            return;
        };
        eprintln!(
            "{} scripted-device documents checked against the schema",
            docs.len()
        );
        assert!(
            failures.is_empty(),
            "{} of {} documents do not match doc/hdparm-rs.schema.json:\n  {}",
            failures.len(),
            docs.len(),
            failures.join("\n  ")
        );
    }

    #[test]
    fn the_hitachi_temperature_is_data() {
        let answer = |count, error| {
            let out = crate::exec::access::AtaOutput {
                count,
                error,
                ..Default::default()
            };
            let fake = sata().on_ata(op::HITACHI_VENDOR, None, Ok(out));
            document(&run_on(fake, "--json -H /dev/x").stdout)["devices"][0]["drive_temperature"]
                .clone()
        };
        assert_eq!(
            answer(90, 0),
            serde_json::json!({"kind": "celsius", "celsius": 25, "in_range": true})
        );
        assert_eq!(
            answer(0, 0x10),
            serde_json::json!({"kind": "below", "celsius": -20, "in_range": false})
        );
        assert_eq!(answer(0xff, 0)["kind"], "above");
    }

    #[test]
    fn quiet_hides_text_not_values_in_json() {
        let doc = document(&run_on(sata(), "--json -q -B -q -a /dev/x").stdout);
        let names: Vec<Value> = settings(&doc)
            .iter()
            .map(|s| s["setting"].clone())
            .collect();
        assert_eq!(names, ["readahead", "apm_level"]);
        // A quiet set is recorded, and read back, as a loud one.
        let doc = document(&run_on(sata(), "--json -q -B200 /dev/x").stdout);
        let items = settings(&doc);
        assert_eq!(items[0]["setting"], "set");
        assert_eq!(items[0]["outcome"], "done");
        assert_eq!(items[1]["setting"], "apm_level");
        // In text, `-q -B` asks for nothing, as in hdparm.
        assert_eq!(run_on(sata(), "-q -B -q -a /dev/x").stdout, "");
    }
}
