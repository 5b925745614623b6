//! The cases `bench/compare.sh` measures: what each one's figure is, its unit, which way is
//! better, and the target its paired ratio (ours / theirs) is held to. One table, so the
//! script, the report and bench/README.md name a case the same way.
//!
//! Must not: compute anything.

use hdparm::stats::Target;

/// What the figure of a case is, and how its CPU time is charged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Metric {
    /// MiB per second; CPU per GiB read (`work` is bytes).
    MibPerSecond,
    /// Reads per second; CPU per read (`work` is reads).
    Iops,
    /// Microseconds of latency (lower is better); no CPU figure.
    Microseconds,
    /// Seconds of wall time per run (lower is better); CPU per run (`work` is runs).
    WallSeconds,
}

impl Metric {
    pub fn unit(self) -> &'static str {
        match self {
            Metric::MibPerSecond => "MiB/s",
            Metric::Iops => "IOPS",
            Metric::Microseconds => "µs",
            Metric::WallSeconds => "ms",
        }
    }

    /// The figure as printed (wall time in ms).
    pub fn shown(self, value: f64) -> f64 {
        match self {
            Metric::WallSeconds => value * 1e3,
            _ => value,
        }
    }

    /// The CPU figure's unit, and the factor from CPU seconds per unit of work to it.
    pub fn cpu_unit(self) -> Option<(&'static str, f64)> {
        match self {
            Metric::MibPerSecond => Some(("CPU s/GiB", f64::from(1u32 << 30))),
            Metric::Iops => Some(("CPU µs/read", 1e6)),
            Metric::Microseconds => None,
            Metric::WallSeconds => Some(("CPU ms/run", 1e3)),
        }
    }
}

/// One case of the comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Case {
    pub key: &'static str,
    pub name: &'static str,
    pub metric: Metric,
    pub target: Target,
    /// The target of the CPU ratio (ours / theirs per unit of work), where the issue sets one.
    pub cpu_target: Option<Target>,
}

const BAND: Target = Target::Within {
    low: 0.95,
    high: 1.05,
};
const NO_SLOWER: Target = Target::AtMost { max: 1.0 };
/// At depth 1 a latency is the inverse of a rate: "at least 0.97 of the IOPS" is "at most
/// 1/0.97 of the latency".
const LATENCY: Target = Target::AtMost { max: 1.0 / 0.97 };

pub const CASES: &[Case] = &[
    Case {
        key: "T",
        name: "-T (cached) vs hdparm",
        metric: Metric::MibPerSecond,
        target: BAND,
        cpu_target: None,
    },
    Case {
        key: "t",
        name: "-t (buffered) vs hdparm",
        metric: Metric::MibPerSecond,
        target: BAND,
        cpu_target: None,
    },
    Case {
        key: "dt",
        name: "--direct -t vs hdparm",
        metric: Metric::MibPerSecond,
        target: BAND,
        cpu_target: None,
    },
    Case {
        key: "seq",
        name: "--bench QD32 2M seq vs fio",
        metric: Metric::MibPerSecond,
        target: Target::AtLeast { min: 0.97 },
        cpu_target: None,
    },
    Case {
        key: "rand",
        name: "--bench-random 4K QD32 vs fio",
        metric: Metric::Iops,
        target: Target::AtLeast { min: 0.97 },
        cpu_target: Some(NO_SLOWER),
    },
    Case {
        key: "lat50",
        name: "latency QD1 4K p50 vs fio",
        metric: Metric::Microseconds,
        target: LATENCY,
        cpu_target: None,
    },
    Case {
        key: "lat99",
        name: "latency QD1 4K p99 vs fio",
        metric: Metric::Microseconds,
        target: LATENCY,
        cpu_target: None,
    },
    Case {
        key: "surface",
        name: "--surface vs fio 1M read",
        metric: Metric::MibPerSecond,
        target: Target::AtLeast { min: 0.95 },
        cpu_target: None,
    },
    Case {
        key: "V",
        name: "start-up -V vs hdparm",
        metric: Metric::WallSeconds,
        target: NO_SLOWER,
        cpu_target: Some(NO_SLOWER),
    },
    Case {
        key: "Istdin",
        name: "start-up --Istdin vs hdparm",
        metric: Metric::WallSeconds,
        target: NO_SLOWER,
        cpu_target: Some(NO_SLOWER),
    },
    Case {
        key: "C",
        name: "start-up -C loop vs hdparm",
        metric: Metric::WallSeconds,
        target: NO_SLOWER,
        cpu_target: Some(NO_SLOWER),
    },
];

/// The case of a key; an unknown key is reported as its own name, judged as a rate against
/// the band, so a new case in the script shows up before it has a row here.
pub fn case(key: &str) -> Case {
    CASES
        .iter()
        .copied()
        .find(|c| c.key == key)
        .unwrap_or(Case {
            key: "?",
            name: "(a case with no row in cases.rs)",
            metric: Metric::MibPerSecond,
            target: BAND,
            cpu_target: None,
        })
}

/// How a target reads in the report.
pub fn target_text(t: Target) -> String {
    match t {
        Target::Within { low, high } => format!("within {low:.2}–{high:.2}"),
        Target::AtLeast { min } => format!("at least {min:.2}"),
        Target::AtMost { max: 1.0 } => "no slower than".to_string(),
        Target::AtMost { max } => format!("at most {max:.3}"),
    }
}
