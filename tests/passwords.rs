//! Passwords stay secret (issue 18, section 5), through the binary on a loop device (root): a
//! loop device takes no security command, so each run ends in a failure, but everything it
//! prints is searched, byte by byte, for the password. With `--json` the password appears
//! nowhere (not in the envelope's `argv`, not in a message); read from a file (newline
//! dropped, 33 bytes refused, `-` for standard input, `/dev/fd/N` for a descriptor) it appears
//! nowhere at all, and hdparm's ` Issuing ...` line says where it came from instead. While a
//! password is being read the process is not dumpable: its `/proc/PID` files belong to root
//! although it runs as `nobody`.

mod common;

use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const PASSWORD: &str = "s3cr3t-Pw";

fn loop_device(test: &str) -> Option<common::Loop> {
    if !common::is_root() {
        common::skip(test, "needs root for losetup");
        return None;
    }
    let lo = common::Loop::new(&format!("pw-{test}"), 8);
    if lo.is_none() {
        common::skip(test, "losetup could not attach a loop device");
    }
    lo
}

/// Runs ours with `args` (in a new session: no terminal), `stdin` on its standard input.
fn ours(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new("setsid")
        .arg(common::our_hdparm())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run");
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(stdin);
    }
    child.wait_with_output().expect("wait")
}

/// Every byte the run printed, searched for the password.
fn assert_never_shown(out: &Output, what: &str) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        assert!(
            !bytes
                .windows(PASSWORD.len())
                .any(|w| w == PASSWORD.as_bytes()),
            "{what}: the password is on {stream}:\n{}",
            String::from_utf8_lossy(bytes)
        );
    }
}

struct TempFile(PathBuf);

impl TempFile {
    fn new(tag: &str, bytes: &[u8]) -> TempFile {
        let path = std::env::temp_dir().join(format!("hdparm-rs-pw-{tag}-{}", std::process::id()));
        std::fs::write(&path, bytes).expect("write");
        TempFile(path)
    }
    fn path(&self) -> &str {
        self.0.to_str().expect("a UTF-8 path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn a_password_on_the_command_line_is_not_in_the_json_document() {
    let test = "a_password_on_the_command_line_is_not_in_the_json_document";
    let Some(lo) = loop_device(test) else { return };
    for args in [
        &["--json", "--security-unlock", PASSWORD, &lo.dev][..],
        &["--json", "--security-set-pass", PASSWORD, &lo.dev],
        &[
            "--json",
            "--user-master",
            "m",
            "--security-erase",
            PASSWORD,
            &lo.dev,
        ],
    ] {
        let out = ours(args, b"");
        assert_never_shown(&out, &format!("{args:?}"));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one document");
        let argv: Vec<&str> = doc["hdparm_rs"]["argv"]
            .as_array()
            .expect("argv")
            .iter()
            .filter_map(|a| a.as_str())
            .collect();
        assert!(argv.contains(&"(password)"), "{argv:?}");
        assert_ne!(out.status.code(), Some(0));
    }
}

#[test]
fn a_password_file_is_read_and_never_shown() {
    let test = "a_password_file_is_read_and_never_shown";
    let Some(lo) = loop_device(test) else { return };
    let file = TempFile::new("file", format!("{PASSWORD}\n").as_bytes());
    let issuing = format!(
        " Issuing SECURITY_UNLOCK command, password from {} (not shown), user=user\n",
        file.path()
    );
    let out = ours(
        &[
            "--security-password-file",
            file.path(),
            "--security-unlock",
            &lo.dev,
        ],
        b"",
    );
    assert_never_shown(&out, "text");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout, format!("\n{}:\n{issuing}", lo.dev));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("SECURITY_UNLOCK: "),
        "the loop device refuses the command after the line"
    );
    for args in [
        &[
            "--json",
            "--security-password-file",
            file.path(),
            "--security-unlock",
            &lo.dev,
        ][..],
        &[
            "--verbose",
            "--security-password-file",
            file.path(),
            "--security-disable",
            &lo.dev,
        ],
    ] {
        let out = ours(args, b"");
        assert_never_shown(&out, &format!("{args:?}"));
    }
    // Standard input.
    let out = ours(
        &[
            "--security-password-file",
            "-",
            "--security-unlock",
            &lo.dev,
        ],
        format!("{PASSWORD}\n").as_bytes(),
    );
    assert_never_shown(&out, "stdin");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(
            " Issuing SECURITY_UNLOCK command, password from standard input (not shown), user=user\n"
        ),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // A descriptor the caller left open, as /dev/fd/3.
    let out = Command::new("sh")
        .arg("-c")
        .arg(r#"exec 3< "$1"; exec setsid "$2" --security-password-file /dev/fd/3 --security-unlock "$3""#)
        .args(["sh", file.path()])
        .arg(common::our_hdparm())
        .arg(&lo.dev)
        .output()
        .expect("sh");
    assert_never_shown(&out, "/dev/fd/3");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("password from /dev/fd/3 (not shown)"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_password_file_longer_than_32_bytes_is_refused() {
    let test = "a_password_file_longer_than_32_bytes_is_refused";
    let Some(lo) = loop_device(test) else { return };
    let file = TempFile::new("long", &[b'x'; 33]);
    let out = ours(
        &[
            "--security-password-file",
            file.path(),
            "--security-set-pass",
            &lo.dev,
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(22));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "--security-password-file: {}: the password is longer than 32 bytes (the size of ATA's password field)\n",
            file.path()
        )
    );
    // 32 bytes and one newline fit: the run goes on to the device (which refuses it).
    let mut fits = vec![b'y'; 32];
    fits.push(b'\n');
    let file = TempFile::new("fits", &fits);
    let out = ours(
        &[
            "--security-password-file",
            file.path(),
            "--security-set-pass",
            &lo.dev,
        ],
        b"",
    );
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains(" Issuing SECURITY_SET_PASS command, password from "),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The owner of `/proc/PID/status`: the process's own user, or root when it is not dumpable.
fn proc_owner(pid: u32) -> u32 {
    std::fs::metadata(format!("/proc/{pid}/status"))
        .expect("/proc/PID/status")
        .uid()
}

/// Waits until `child` is our binary blocked in read(2) on its standard input (syscall 0 with
/// fd 0, as /proc/PID/syscall shows it on x86-64); fails if it ends first.
fn wait_until_it_reads_stdin(child: &mut std::process::Child) {
    let pid = child.id();
    let exe = common::our_hdparm().canonicalize().expect("binary");
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            panic!("it ended ({status}) before it read its standard input");
        }
        let ours = std::fs::read_link(format!("/proc/{pid}/exe"))
            .ok()
            .as_deref()
            == Some(exe.as_path());
        let reading = std::fs::read_to_string(format!("/proc/{pid}/syscall"))
            .is_ok_and(|s| s.starts_with("0 0x0 "));
        if ours && reading {
            return;
        }
        std::thread::yield_now();
    }
}

/// Runs ours as `nobody`, in a session of its own (no terminal: a prompt reads stdin), with a
/// standard input nobody writes to yet.
fn as_nobody(args: &[&str]) -> std::process::Child {
    Command::new("setsid")
        .arg(common::our_hdparm())
        .args(args)
        .uid(65534)
        .gid(65534)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run as nobody")
}

#[test]
fn the_process_is_not_dumpable_while_it_reads_a_password() {
    let test = "the_process_is_not_dumpable_while_it_reads_a_password";
    if !common::is_root() || !cfg!(target_arch = "x86_64") {
        common::skip(
            test,
            "needs root (to run the binary as nobody) and x86-64's syscall numbers",
        );
        return;
    }
    for args in [
        &[
            "--security-prompt-for-password",
            "--security-unlock",
            "/dev/null",
        ][..],
        &[
            "--security-password-file",
            "-",
            "--security-unlock",
            "/dev/null",
        ],
    ] {
        let mut child = as_nobody(args);
        wait_until_it_reads_stdin(&mut child);
        let pid = child.id();
        assert_eq!(
            proc_owner(pid),
            0,
            "{args:?}: /proc/{pid} belongs to its user: the process is dumpable"
        );
        let mut input = child.stdin.take().expect("stdin");
        input
            .write_all(format!("{PASSWORD}\n").as_bytes())
            .expect("write");
        drop(input);
        let out = child.wait_with_output().expect("wait");
        assert_never_shown(&out, &format!("{args:?}"));
    }
}

#[test]
fn without_a_password_the_process_stays_dumpable() {
    // The same wait, with no password: /proc/PID belongs to nobody, so the test above tells
    // one from the other.
    let test = "without_a_password_the_process_stays_dumpable";
    if !common::is_root() || !cfg!(target_arch = "x86_64") {
        common::skip(
            test,
            "needs root (to run the binary as nobody) and x86-64's syscall numbers",
        );
        return;
    }
    let mut child = as_nobody(&["--Istdin"]);
    wait_until_it_reads_stdin(&mut child);
    assert_eq!(proc_owner(child.id()), 65534);
    drop(child.stdin.take());
    let _ = child.wait_with_output();
}
