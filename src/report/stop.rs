//! The report of a run that a signal stopped (issue 18): which devices were done, which one
//! was interrupted and in what state it is left, and which were never started. hdparm 9.65
//! dies of the signal at once and says nothing; we finish the command in flight, send nothing
//! more, say this, and then die of the signal (DIFFERENCES.md, "signals").
//!
//! Text, on stderr, after everything else the run printed:
//! ```text
//! stopped by SIGTERM: nothing more was sent to any device
//!  /dev/sdb: done
//!  /dev/sdc: interrupted: SECURITY ERASE PREPARE was sent, SECURITY ERASE UNIT was not: ...
//!  /dev/sdd: not started
//! ```
//! JSON: the document's `stop` object, `{signal, signal_number, devices: [{name, state,
//! detail?}]}`, `state` one of `done`, `failed` (done, with errors), `interrupted`,
//! `not_started` (`doc/hdparm-rs.schema.json`, `stop`).
//!
//! Must not: decide anything; the executor says what each device's turn came to.

use schemars::JsonSchema;
use serde::Serialize;

/// How one device's turn ended: `done`; `failed` (done, with errors); `interrupted` (`detail`
/// says in what state it is left); `not_started` (nothing was sent to it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Everything asked for it was done (the stop came after, or during its last command,
    /// which ran to its end).
    Done,
    /// Its turn ended before the stop, with errors (reported above).
    Failed,
    /// The stop came during its turn and cut it: `detail` says in what state it is left.
    Interrupted,
    /// Nothing was sent to it.
    NotStarted,
}

/// One device of the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct DeviceTurn {
    pub name: String,
    pub state: State,
    /// What was done and in what state the drive is left, for an interrupted device (or a
    /// done one whose last command the stop came during).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub detail: Option<String>,
}

/// The whole report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopReport {
    /// The signal that stopped the run (the first one, if several came).
    pub signal: i32,
    pub signal_name: String,
    pub devices: Vec<DeviceTurn>,
}

impl StopReport {
    /// The first line, also the JSON message's text.
    pub fn headline(&self) -> String {
        format!(
            "stopped by {}: nothing more was sent to any device",
            self.signal_name
        )
    }

    /// The lines on stderr, the headline first.
    pub fn text(&self) -> String {
        let mut text = self.headline();
        text.push('\n');
        for d in &self.devices {
            let state = match d.state {
                State::Done => "done",
                State::Failed => "done, with errors (above)",
                State::Interrupted => "interrupted",
                State::NotStarted => "not started",
            };
            match &d.detail {
                Some(detail) => text.push_str(&format!(" {}: {state}: {detail}\n", d.name)),
                None => text.push_str(&format!(" {}: {state}\n", d.name)),
            }
        }
        text
    }

    /// The document's `stop` object.
    pub fn json(&self) -> serde_json::Value {
        serde_json::to_value(StopJson {
            signal: &self.signal_name,
            signal_number: self.signal,
            devices: &self.devices,
        })
        .unwrap_or_default()
    }
}

/// A run that a signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) stopped: the command in flight
/// ended, nothing more was sent; each device of the command line with how its turn ended
/// (src/report/stop.rs).
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct StopJson<'a> {
    /// The signal's name.
    #[schemars(regex(pattern = r"^(SIG[A-Z]+|signal [0-9]+)$"))]
    signal: &'a str,
    #[schemars(range(min = 1))]
    signal_number: i32,
    devices: &'a [DeviceTurn],
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> StopReport {
        let turn = |name: &str, state, detail: Option<&str>| DeviceTurn {
            name: name.into(),
            state,
            detail: detail.map(str::to_string),
        };
        StopReport {
            signal: 15,
            signal_name: "SIGTERM".into(),
            devices: vec![
                turn("/dev/sdb", State::Done, None),
                turn(
                    "/dev/sdc",
                    State::Interrupted,
                    Some("the drive is as it was"),
                ),
                turn("/dev/sdd", State::NotStarted, None),
            ],
        }
    }

    #[test]
    fn the_text_names_each_device_and_its_state() {
        assert_eq!(
            report().text(),
            "stopped by SIGTERM: nothing more was sent to any device\n /dev/sdb: done\n /dev/sdc: interrupted: the drive is as it was\n /dev/sdd: not started\n"
        );
    }

    #[test]
    fn the_json_has_the_signal_and_the_states() {
        let v = report().json();
        assert_eq!(v["signal"], "SIGTERM");
        assert_eq!(v["signal_number"], 15);
        assert_eq!(v["devices"][1]["state"], "interrupted");
        assert_eq!(v["devices"][1]["detail"], "the drive is as it was");
        assert_eq!(v["devices"][2]["state"], "not_started");
        assert!(v["devices"][0].get("detail").is_none());
    }
}
