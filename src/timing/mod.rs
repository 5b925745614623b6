//! Read timing (`-T`, `-t`) and the benchmark mode: measurement loops over an injected clock
//! and reader, statistics as pure functions, and the printed lines. Nothing here opens a device.
//!
//! * [`reads`]: hdparm's `-T` and `-t` sequences and their lines, byte for byte.
//! * [`bench`]: our repeated-trial, queue-depth benchmark (`--bench*`): options, offsets,
//!   report, text and JSON.
//! * [`latency`]: the per-read latency histogram and its percentiles (`--bench`).
//! * [`stats`]: mean, sample standard deviation, min, max, median.
//! * [`clock`]: the clock and sleeper traits, and hdparm's elapsed-time arithmetic.
//! * [`printf`]: C's `%N.Pf`, exactly.
//!
//! The real clock and sleeper come from `std`, the device-side reader and engines from
//! `exec::measure::engines` (timing's traits over `device`'s reads); the step functions that put
//! them together are in `exec::measure`.

pub mod bench;
pub mod clock;
pub mod latency;
pub mod printf;
pub mod reads;
pub mod stats;
pub mod surface;
