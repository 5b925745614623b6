//! The experiment loop over fake settings and a fake trial runner: the order, the verdicts,
//! and the restore after success, error, a read-back that lies, and a signal.

use super::*;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// A device's settings in memory, with a log of every set.
#[derive(Default)]
struct State {
    values: HashMap<String, String>,
    /// Every apply, as `-a 8` words joined.
    log: Vec<String>,
    /// Options whose get fails.
    unreadable: Vec<String>,
    /// Options whose set is silently ignored (the read-back then differs).
    ignored: Vec<String>,
    /// The apply with this number (from 1) fails.
    fail_apply: Option<usize>,
}

struct FakeSettings(Rc<RefCell<State>>);

impl Settings for FakeSettings {
    fn read(&mut self, option: &str) -> Result<String, String> {
        let s = self.0.borrow();
        if s.unreadable.iter().any(|o| o == option) {
            return Err("not supported".into());
        }
        s.values
            .get(option)
            .cloned()
            .ok_or_else(|| "no such setting".into())
    }

    fn apply(&mut self, settings: &[Setting]) -> Result<(), String> {
        let mut s = self.0.borrow_mut();
        let words: Vec<String> = settings.iter().map(Setting::text).collect();
        s.log.push(words.join(" "));
        if s.fail_apply == Some(s.log.len()) {
            return Err("scripted failure".into());
        }
        for x in settings {
            if !s.ignored.contains(&x.option) {
                s.values.insert(x.option.clone(), x.value.clone());
            }
        }
        Ok(())
    }
}

/// Trials whose rate depends on the read-ahead currently set, plus scripted noise.
struct FakeTrials {
    state: Rc<RefCell<State>>,
    rate_of: fn(&str) -> f64,
    noise: Vec<f64>,
    calls: usize,
    /// The trial with this number (from 1, the warm-up included) fails.
    fail_at: Option<usize>,
}

impl Trials for FakeTrials {
    fn run(&mut self) -> Result<f64, String> {
        self.calls += 1;
        if self.fail_at == Some(self.calls) {
            return Err("read error".into());
        }
        let ra = self
            .state
            .borrow()
            .values
            .get("-a")
            .cloned()
            .unwrap_or_default();
        let noise = self.noise[(self.calls - 1) % self.noise.len()];
        Ok((self.rate_of)(&ra) + noise)
    }
}

fn request(words: &str) -> ExperimentRequest {
    let argv: Vec<OsString> = std::iter::once("hdparm")
        .chain(words.split('|'))
        .map(OsString::from)
        .collect();
    match crate::cli::parse(&argv).result {
        Ok(crate::cli::Invocation::Experiment(r)) => r,
        other => panic!("{words}: {other:?}"),
    }
}

fn device(values: &[(&str, &str)]) -> Rc<RefCell<State>> {
    let state = State {
        values: values
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..Default::default()
    };
    Rc::new(RefCell::new(state))
}

fn faster_with_big_readahead(ra: &str) -> f64 {
    if ra == "2048" {
        150.0
    } else {
        100.0
    }
}

fn same_for_all(_: &str) -> f64 {
    100.0
}

fn trials(state: &Rc<RefCell<State>>, rate_of: fn(&str) -> f64) -> FakeTrials {
    FakeTrials {
        state: state.clone(),
        rate_of,
        noise: vec![0.0, 1.5, -1.0, 2.0, -2.5, 0.5, 1.0],
        calls: 0,
        fail_at: None,
    }
}

fn never() -> bool {
    false
}

#[test]
fn the_order_is_abba_and_balanced() {
    assert_eq!(balanced_order(2, 3), [0, 1, 1, 0, 0, 1]);
    assert_eq!(balanced_order(3, 2), [0, 1, 2, 2, 1, 0]);
    for (arms, n) in [(2, 8), (3, 5), (4, 4)] {
        let order = balanced_order(arms, n);
        for arm in 0..arms {
            assert_eq!(order.iter().filter(|&&a| a == arm).count(), n as usize);
        }
    }
    // Over each pair of blocks every arm sits at the same mean position: a linear drift adds
    // the same to each.
    let order = balanced_order(3, 4);
    let mean_position = |arm: usize| {
        let p: Vec<usize> = (0..order.len()).filter(|&i| order[i] == arm).collect();
        p.iter().sum::<usize>() as f64 / p.len() as f64
    };
    assert_eq!(mean_position(0), mean_position(2));
    assert_eq!(mean_position(1), mean_position(2));
}

#[test]
fn a_clear_winner_is_named_and_the_originals_come_back() {
    let req = request("--experiment|-a 8|-a 2048|--trials|3|/dev/sdz");
    let state = device(&[("-a", "256")]);
    let mut t = trials(&state, faster_with_big_readahead);
    let (r, ending) =
        run_with(&req, &mut FakeSettings(state.clone()), &mut t, &never, None).unwrap();
    assert_eq!(ending, Ending::Done);
    assert_eq!(
        r.originals,
        [Setting {
            option: "-a".into(),
            value: "256".into()
        }]
    );
    // The warm-up (arm 1), then ABBA ABBA... and the restore.
    assert_eq!(
        state.borrow().log,
        ["-a 8", "-a 8", "-a 2048", "-a 2048", "-a 8", "-a 8", "-a 2048", "-a 256"]
    );
    assert_eq!(r.warmup.map(|w| w.arm), Some(0));
    assert_eq!(r.arms[0].trials_mib_per_second.len(), 3);
    assert_eq!(r.arms[1].trials_mib_per_second.len(), 3);
    assert_eq!(
        r.trials.iter().map(|t| t.arm).collect::<Vec<_>>(),
        [0, 1, 1, 0, 0, 1]
    );
    assert_eq!(r.comparisons.len(), 1);
    assert_eq!(r.comparisons[0].verdict, stats::Verdict::SecondLarger);
    assert_eq!(r.winner, Some(1));
    assert_eq!(r.kept, None);
    assert_eq!(state.borrow().values["-a"], "256");
    assert_eq!(
        r.restored,
        [Restored {
            option: "-a".into(),
            value: "256".into(),
            reads_back: Some("256".into())
        }]
    );
    let text = report::render_text(&r);
    assert!(
        text.contains(" winner: '-a 2048', faster than every other arm"),
        "{text}"
    );
    assert!(
        text.contains(" restored: -a 256 (reads back 256)"),
        "{text}"
    );
}

#[test]
fn noise_alone_gives_no_winner_and_keep_restores() {
    let req = request("--experiment|-a 8|-a 2048|--trials|3|--keep|/dev/sdz");
    let state = device(&[("-a", "256")]);
    let mut t = trials(&state, same_for_all);
    t.noise = vec![0.0, 30.0, -25.0, 20.0, -30.0, 25.0, 10.0];
    let (r, ending) =
        run_with(&req, &mut FakeSettings(state.clone()), &mut t, &never, None).unwrap();
    assert_eq!(ending, Ending::Done);
    assert!(matches!(
        r.comparisons[0].verdict,
        stats::Verdict::NoDifference { .. }
    ));
    assert_eq!((r.winner, r.kept), (None, None));
    assert_eq!(state.borrow().values["-a"], "256");
    let text = report::render_text(&r);
    assert!(
        text.contains("no difference this run can detect; the noise is ±"),
        "{text}"
    );
}

#[test]
fn keep_leaves_the_winner_and_gives_its_stanza() {
    let req = request("--experiment|-a 2048|-a 8|--trials|3|--keep|/dev/sdz");
    let state = device(&[("-a", "256")]);
    let mut t = trials(&state, faster_with_big_readahead);
    let (r, ending) =
        run_with(&req, &mut FakeSettings(state.clone()), &mut t, &never, None).unwrap();
    assert_eq!(ending, Ending::Done);
    // Arm 1 is the baseline; arm 2 is slower, and arm 1 wins.
    assert_eq!(r.comparisons[0].verdict, stats::Verdict::SecondSmaller);
    assert_eq!((r.winner, r.kept), (Some(0), Some(0)));
    assert_eq!(state.borrow().values["-a"], "2048");
    assert!(r.restored.is_empty());
    assert_eq!(
        r.stanza.as_deref(),
        Some("/dev/sdz {\n\tread_ahead_sect = 2048\n}\n")
    );
}

#[test]
fn an_unreadable_option_is_refused_before_anything_changes() {
    let req = request("--experiment|-a 8|-a 2048 -W0|/dev/sdz");
    let state = device(&[("-a", "256")]);
    state.borrow_mut().unreadable.push("-W".into());
    let mut t = trials(&state, same_for_all);
    let err = run_with(&req, &mut FakeSettings(state.clone()), &mut t, &never, None).unwrap_err();
    assert!(err.contains("cannot read -W before changing it"), "{err}");
    assert!(state.borrow().log.is_empty());
    assert_eq!(t.calls, 0);
}

#[test]
fn an_error_mid_run_stops_and_restores() {
    let req = request("--experiment|-a 8|-a 2048 -W0|--trials|3|/dev/sdz");
    let state = device(&[("-a", "256"), ("-W", "1")]);
    let mut t = trials(&state, same_for_all);
    t.fail_at = Some(3);
    let (r, ending) =
        run_with(&req, &mut FakeSettings(state.clone()), &mut t, &never, None).unwrap();
    assert_eq!(ending, Ending::Failed);
    assert_eq!(
        r.stopped.as_deref(),
        Some("trial 3 (arm '-a 2048 -W0'): read error")
    );
    assert_eq!(r.winner, None);
    assert_eq!(
        state.borrow().log.last().map(String::as_str),
        Some("-a 256 -W 1")
    );
    assert_eq!(
        (
            state.borrow().values["-a"].as_str(),
            state.borrow().values["-W"].as_str()
        ),
        ("256", "1")
    );
    assert_eq!(r.restored.len(), 2);
    let text = report::render_text(&r);
    assert!(text.contains(" stopped early: trial 3"), "{text}");
    assert!(
        text.contains(" restored: -a 256 (reads back 256), -W 1 (reads back 1)"),
        "{text}"
    );
}

#[test]
fn a_setting_that_does_not_read_back_stops_the_run() {
    let req = request("--experiment|-a 8|-a 2048 -W0|--trials|3|/dev/sdz");
    let state = device(&[("-a", "256"), ("-W", "1")]);
    state.borrow_mut().ignored.push("-W".into());
    let mut t = trials(&state, same_for_all);
    let (r, ending) =
        run_with(&req, &mut FakeSettings(state.clone()), &mut t, &never, None).unwrap();
    assert_eq!(ending, Ending::Failed);
    assert_eq!(
        r.stopped.as_deref(),
        Some("arm '-a 2048 -W0': -W was set to 0 but reads back 1")
    );
    assert_eq!(state.borrow().values["-a"], "256");
}

#[test]
fn a_failed_apply_stops_and_restores() {
    let req = request("--experiment|-a 8|-a 2048|--trials|3|/dev/sdz");
    let state = device(&[("-a", "256")]);
    state.borrow_mut().fail_apply = Some(2);
    let mut t = trials(&state, same_for_all);
    let (r, ending) =
        run_with(&req, &mut FakeSettings(state.clone()), &mut t, &never, None).unwrap();
    assert_eq!(ending, Ending::Failed);
    assert!(r
        .stopped
        .as_deref()
        .is_some_and(|s| s.contains("scripted failure")));
    assert_eq!(state.borrow().values["-a"], "256");
}

#[test]
fn a_signal_stops_between_trials_and_restores() {
    let req = request("--experiment|-a 8|-a 2048|--trials|3|--keep|/dev/sdz");
    let state = device(&[("-a", "256")]);
    let mut t = trials(&state, faster_with_big_readahead);
    // The flag is raised after the third check: two trials ran.
    let checks = Cell::new(0);
    let stop = || {
        checks.set(checks.get() + 1);
        checks.get() > 2
    };
    let (r, ending) =
        run_with(&req, &mut FakeSettings(state.clone()), &mut t, &stop, None).unwrap();
    assert_eq!(ending, Ending::Failed);
    assert_eq!(t.calls, 2);
    assert_eq!(
        r.stopped.as_deref(),
        Some("interrupted by a signal after 2 of 7 trials")
    );
    // Even with --keep, a stopped run keeps nothing.
    assert_eq!((r.winner, r.kept), (None, None));
    assert_eq!(state.borrow().values["-a"], "256");
    assert_eq!(r.restored[0].reads_back.as_deref(), Some("256"));
}

#[test]
fn a_signal_during_the_last_trial_still_restores() {
    let req = request("--experiment|-a 8|-a 2048|--trials|2|--keep|/dev/sdz");
    let state = device(&[("-a", "256")]);
    let mut t = trials(&state, faster_with_big_readahead);
    let checks = Cell::new(0);
    // 5 checks before the 5 trials, then the one after them.
    let stop = || {
        checks.set(checks.get() + 1);
        checks.get() > 5
    };
    let (r, ending) =
        run_with(&req, &mut FakeSettings(state.clone()), &mut t, &stop, None).unwrap();
    assert_eq!(ending, Ending::Failed);
    assert_eq!(t.calls, 5);
    assert_eq!(r.kept, None);
    assert_eq!(state.borrow().values["-a"], "256");
}

#[test]
fn progress_goes_to_the_terminal_and_is_cleared() {
    let req = request("--experiment|-a 8|-a 2048|--trials|2|/dev/sdz");
    let state = device(&[("-a", "256")]);
    let mut t = trials(&state, same_for_all);
    let mut err = Vec::new();
    run_with(
        &req,
        &mut FakeSettings(state),
        &mut t,
        &never,
        Some((&mut err, true)),
    )
    .unwrap();
    let err = String::from_utf8(err).unwrap();
    assert!(
        err.contains("\r\x1b[K/dev/sdz: warm-up, arm 1 '-a 8'"),
        "{err}"
    );
    assert!(
        err.contains("/dev/sdz: trial 1/4, arm 1 '-a 8', about "),
        "{err}"
    );
    assert!(
        err.contains("/dev/sdz: trial 4/4, arm 1 '-a 8', about "),
        "{err}"
    );
    assert!(err.ends_with("\r\x1b[K"));
}

#[test]
fn risky_arms_need_the_guard_flag() {
    let req = request("--experiment|-a 8|-d0|/dev/sdz");
    let text = guard_refusal(&req, &req.arms[1]).unwrap();
    assert!(text.contains("arm '-d0' sets -d 0"), "{text}");
    assert!(guard_refusal(&req, &req.arms[0]).is_none());
    let req = request("--yes-i-know-what-i-am-doing|--experiment|-a 8|-d0|/dev/sdz");
    assert!(guard_refusal(&req, &req.arms[1]).is_none());
}

#[test]
fn an_arm_gives_each_option_its_last_value() {
    let req = request("--experiment|-a 8 -W0 -a 16|-a 2048|/dev/sdz");
    let s = arm_settings(&req.arms[0]);
    let texts: Vec<String> = s.iter().map(Setting::text).collect();
    assert_eq!(texts, ["-a 16", "-W 0"]);
    assert!(same_value("-X", "udma5", "69"));
    assert!(!same_value("-X", "udma5", "udma4"));
}

#[test]
fn an_original_the_option_cannot_set_is_refused() {
    // A loop device's read-ahead is often 5120 sectors; -a sets 0..2048 only.
    let req = request("--experiment|-a 8|-a 2048|/dev/sdz");
    let state = device(&[("-a", "5120")]);
    let mut t = trials(&state, same_for_all);
    let err = run_with(&req, &mut FakeSettings(state.clone()), &mut t, &never, None).unwrap_err();
    assert!(
        err.contains("-a is 5120 now, outside what -a can set (0..2048)"),
        "{err}"
    );
    assert!(state.borrow().log.is_empty());
}

#[test]
fn a_failed_restore_is_reported_and_fails_the_run() {
    let req = request("--experiment|-a 8|-a 2048|--trials|2|/dev/sdz");
    let state = device(&[("-a", "256")]);
    // 5 trials, each after its apply; the 6th apply is the restore, and the 7th its retry.
    state.borrow_mut().fail_apply = Some(6);
    let mut t = trials(&state, same_for_all);
    let (r, ending) =
        run_with(&req, &mut FakeSettings(state.clone()), &mut t, &never, None).unwrap();
    assert_eq!(ending, Ending::Failed);
    assert_eq!(r.stopped, None);
    assert_eq!(r.restore_failed.as_deref(), Some("scripted failure"));
    // The retry, one option at a time, brought it back.
    assert_eq!(state.borrow().values["-a"], "256");
    let text = report::render_text(&r);
    assert!(
        text.contains(" the restore failed: scripted failure"),
        "{text}"
    );
}

#[test]
fn a_log_gets_a_plain_progress_line_at_each_tenth() {
    // 2 arms x 10 trials + the warm-up: 21 steps, a line at the start and at each tenth.
    let req = request("--experiment|-a 8|-a 2048|--trials|10|/dev/sdz");
    let state = device(&[("-a", "256")]);
    let mut t = trials(&state, faster_with_big_readahead);
    let mut log = Vec::new();
    run_with(
        &req,
        &mut FakeSettings(state.clone()),
        &mut t,
        &never,
        Some((&mut log, false)),
    )
    .unwrap();
    let log = String::from_utf8(log).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 10, "{log}");
    assert_eq!(lines[0], "/dev/sdz: warm-up, arm 1 '-a 8'");
    assert!(
        lines[1].starts_with("/dev/sdz: trial 3/20, arm 2 '-a 2048', about "),
        "{log}"
    );
    assert!(
        lines
            .iter()
            .all(|l| l.ends_with(" s left") || l.ends_with('\'')),
        "{log}"
    );
    assert!(!log.contains('\x1b') && !log.contains('\r'), "{log}");
}
