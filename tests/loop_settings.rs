//! The block-level options end to end on a loop device (root): `-a`, `-r`, `-g`, `-z`, `-f`
//! and the default report, get and set, run with our binary and with the real hdparm 9.65 on
//! the same device. stdout must be identical, and a set must really change the setting
//! (read back with the other tool, so neither tool only agrees with itself).

mod common;

use std::process::Command;

use common::Loop;

fn run(program: &std::path::Path, args: &[&str]) -> (String, Option<i32>) {
    let out = Command::new(program).args(args).output().expect("run");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
    )
}

#[test]
fn block_options_match_hdparm_on_a_loop_device() {
    if !common::is_root() {
        common::skip(
            "block_options_match_hdparm_on_a_loop_device",
            "needs root for losetup",
        );
        return;
    }
    let Some(reference) = common::reference_hdparm() else {
        common::skip(
            "block_options_match_hdparm_on_a_loop_device",
            "the reference hdparm is not installed",
        );
        return;
    };
    let Some(lo) = Loop::new("settings", 64) else {
        common::skip(
            "block_options_match_hdparm_on_a_loop_device",
            "losetup could not attach a loop device",
        );
        return;
    };
    let ours = common::our_hdparm();
    let dev = lo.dev.as_str();
    // Each step runs with hdparm first, then with ours, so both see the same state.
    let steps: &[&[&str]] = &[
        &[dev],
        &["-v", dev],
        &["-a", dev],
        &["-a512", dev],
        &["-a", dev],
        &["-a", "128", "-q", "-a256", dev],
        &["-r", dev],
        &["-g", dev],
        &["-f", dev],
        &["-q", "-f", dev],
        &["-arg", dev],
        &["-a", dev, "-r", dev],
    ];
    for args in steps {
        let (want, _) = run(&reference, args);
        let (got, _) = run(&ours, args);
        assert_eq!(got, want, "stdout of {args:?}");
    }
    // A set takes effect, and the other tool reads it back.
    let (_, status) = run(&ours, &["-a1024", dev]);
    assert_eq!(status, Some(0));
    let (text, _) = run(&reference, &["-a", dev]);
    assert!(text.contains(" readahead     = 1024 (on)"), "{text}");
    let (_, status) = run(&reference, &["-a256", dev]);
    assert_eq!(status, Some(0));
    let (text, _) = run(&ours, &["-a", dev]);
    assert!(text.contains(" readahead     = 256 (on)"), "{text}");
    // -r1 then -r0, each read back by the other tool.
    let (set, status) = run(&ours, &["-r1", dev]);
    assert_eq!(status, Some(0));
    assert!(
        set.contains(" setting readonly to 1 (on)") && set.contains(" readonly      =  1 (on)"),
        "{set}"
    );
    let (text, _) = run(&reference, &["-r", dev]);
    assert!(text.contains(" readonly      =  1 (on)"), "{text}");
    let (_, status) = run(&ours, &["-r0", dev]);
    assert_eq!(status, Some(0));
    let (text, _) = run(&reference, &["-r", dev]);
    assert!(text.contains(" readonly      =  0 (off)"), "{text}");
    // -z on a loop device attached without partition scanning (no `losetup -P`): the kernel
    // refuses BLKRRPART with EINVAL. Both print the header and hdparm's failure line (ours with
    // our added context, which the normalisation allows) and both exit non-zero (hdparm 22, we
    // 25: exit:errno).
    let want = Command::new(&reference)
        .args(["-z", dev])
        .output()
        .expect("run");
    let got = Command::new(&ours).args(["-z", dev]).output().expect("run");
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        String::from_utf8_lossy(&want.stdout)
    );
    assert!(
        !want.status.success(),
        "hdparm -z succeeded: the premise (BLKRRPART refused) no longer holds"
    );
    assert!(
        !got.status.success(),
        "ours -z succeeded where BLKRRPART is refused"
    );
    let (want_err, got_err) = common::normalise_stderr(
        &want.stderr,
        &reference.to_string_lossy(),
        &got.stderr,
        &ours.to_string_lossy(),
    );
    assert!(
        String::from_utf8_lossy(&want_err).contains(" BLKRRPART failed"),
        "{}",
        String::from_utf8_lossy(&want_err)
    );
    assert_eq!(
        String::from_utf8_lossy(&got_err),
        String::from_utf8_lossy(&want_err)
    );
}
