//! `--surface` (ours): a read scan of the whole device, zone by zone, as a loop over an
//! injected target and clock (so the slow-zone and error rules are tested without a disk).
//!
//! The device is cut into `zones` equal zones. Each zone is read sequentially in 1 MiB blocks
//! (all of it, or its first [`QUICK_BYTES`] with `quick`), timed to give its read rate; then
//! [`ACCESS_SAMPLES`] 4 KiB reads at pseudo-random aligned offsets inside it give its access
//! time. A read error never stops the scan: the block is counted as failed, skipped, and the
//! scan goes on with the next one. A zone is flagged slow below half the median rate.
//!
//! Read errors are kept as ranges of sectors, adjacent failed blocks joined, at most
//! [`MAX_RANGES_PER_ZONE`] listed per zone (the rest counted), so that what the scan holds and
//! prints stays bounded whatever the size of the disk and however it fails. A device that
//! shrinks or goes away under the scan (a failed read at or past its size now, or ENODEV,
//! ENXIO) is not a run of read errors: the scan stops there and says so ([`Ending`]), as it
//! stops when `stop` says (a signal), keeping the zones read so far.
//!
//! What it must not do: open the device or read the real time: both come in.

use super::clock::{elapsed_seconds, Clock};
use super::reads::TimingTarget;
use serde::Serialize;

/// The block a zone is read in.
pub const BLOCK_BYTES: usize = 1 << 20;
/// How much of each zone `--surface-quick` reads.
pub const QUICK_BYTES: u64 = 8 << 20;
/// The size of one access-time read.
pub const ACCESS_BYTES: usize = 4096;
/// Access-time reads per zone.
pub const ACCESS_SAMPLES: usize = 4;
/// Error ranges listed per zone; more are counted, not listed.
pub const MAX_RANGES_PER_ZONE: usize = 16;

/// Sectors that failed to read, first and last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ErrorRange {
    pub first_lba: u64,
    pub last_lba: u64,
}

/// What one zone gave.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Zone {
    pub index: usize,
    /// The zone's sectors (512 bytes), first and last.
    pub first_lba: u64,
    pub last_lba: u64,
    pub bytes_read: u64,
    /// Sequential read rate, in MB/s (10^6 bytes); None when nothing could be read.
    pub read_mb_per_s: Option<f64>,
    /// Mean access time of the random reads, in milliseconds.
    pub access_ms: Option<f64>,
    /// Blocks (1 MiB, or the shorter last one) that failed to read.
    pub error_blocks: u64,
    /// The failed sectors, adjacent blocks joined: the first [`MAX_RANGES_PER_ZONE`] ranges.
    #[schemars(length(max = 16))]
    pub error_ranges: Vec<ErrorRange>,
    /// Ranges after those listed.
    pub error_ranges_not_listed: u64,
    /// Below half the median rate.
    pub slow: bool,
}

impl Zone {
    /// Whether a block of the zone failed to read.
    pub fn has_errors(&self) -> bool {
        self.error_blocks > 0
    }

    /// Counts the failed sectors `first..=last`, joined to the range before when adjacent.
    fn failed(&mut self, first: u64, last: u64, tail: &mut Option<u64>) {
        self.error_blocks += 1;
        let joins = *tail == Some(first.wrapping_sub(1));
        *tail = Some(last);
        if joins {
            if self.error_ranges_not_listed == 0 {
                if let Some(range) = self.error_ranges.last_mut() {
                    range.last_lba = last;
                }
            }
        } else if self.error_ranges.len() < MAX_RANGES_PER_ZONE && self.error_ranges_not_listed == 0
        {
            self.error_ranges.push(ErrorRange {
                first_lba: first,
                last_lba: last,
            });
        } else {
            self.error_ranges_not_listed += 1;
        }
    }
}

/// How the scan ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// Every zone was read.
    Complete,
    /// A read at or past the device's size now (it shrank, or went away): the scan stopped.
    DeviceWentAway,
    /// A signal stopped the scan.
    Stopped,
}

/// The whole scan.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Scan {
    pub size_bytes: u64,
    pub quick: bool,
    /// The zones the device was cut into; `zones` holds those read (all, unless it ended
    /// early: the last one may then be partly read).
    #[schemars(range(min = 1))]
    pub planned_zones: usize,
    pub zones: Vec<Zone>,
    pub median_mb_per_s: Option<f64>,
    pub ended: Ending,
    /// Where an early end came: the sector of the read that found the device gone, or the
    /// next one the scan would have read when it was stopped.
    pub ended_at_lba: Option<u64>,
}

/// Whether a failed read at `offset` means the device is gone or smaller now.
fn went_away(target: &mut dyn TimingTarget, offset: u64, error: Option<i32>) -> bool {
    matches!(error, Some(libc::ENODEV | libc::ENXIO))
        || target.size_bytes().is_some_and(|size| size <= offset)
}

/// Scans `size_bytes` of `target` in `zones` zones. `buf` must hold [`BLOCK_BYTES`] (aligned for
/// O_DIRECT by the caller). `progress(done, total)` is called after each zone; `stop()` is
/// asked before each block.
#[allow(clippy::too_many_arguments)]
pub fn scan(
    target: &mut dyn TimingTarget,
    clock: &mut dyn Clock,
    buf: &mut [u8],
    size_bytes: u64,
    zones: usize,
    quick: bool,
    progress: &mut dyn FnMut(usize, usize),
    stop: &dyn Fn() -> bool,
) -> Scan {
    let zones = zones.max(1);
    let zone_bytes = (size_bytes / zones as u64) / 512 * 512;
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut out = Vec::with_capacity(zones);
    let mut ended = Ending::Complete;
    let mut ended_at_lba = None;
    for index in 0..zones {
        let start = index as u64 * zone_bytes;
        let end = if index + 1 == zones {
            size_bytes
        } else {
            start + zone_bytes
        };
        let to_read = if quick {
            (end - start).min(QUICK_BYTES)
        } else {
            end - start
        };
        let mut zone = Zone {
            index,
            first_lba: start / 512,
            last_lba: end.saturating_sub(1) / 512,
            bytes_read: 0,
            read_mb_per_s: None,
            access_ms: None,
            error_blocks: 0,
            error_ranges: Vec::new(),
            error_ranges_not_listed: 0,
            slow: false,
        };
        let mut tail = None;
        let began = clock.now();
        let mut offset = start;
        while offset < start + to_read {
            if stop() {
                ended = Ending::Stopped;
                ended_at_lba = Some(offset / 512);
                break;
            }
            let want = ((start + to_read - offset) as usize)
                .min(BLOCK_BYTES)
                .min(buf.len());
            let read = target
                .seek(offset)
                .and_then(|_| target.read_block(&mut buf[..want]));
            match read {
                Ok(n) if n > 0 => zone.bytes_read += want as u64,
                other => {
                    let errno = other.err().and_then(|e| e.raw_os_error());
                    if went_away(target, offset, errno) {
                        ended = Ending::DeviceWentAway;
                        ended_at_lba = Some(offset / 512);
                        break;
                    }
                    zone.failed(offset / 512, (offset + want as u64 - 1) / 512, &mut tail);
                }
            }
            offset += want as u64;
        }
        let seconds = elapsed_seconds(began, clock.now());
        if zone.bytes_read > 0 && seconds > 0.0 {
            zone.read_mb_per_s = Some(zone.bytes_read as f64 / 1e6 / seconds);
        }
        if ended == Ending::Complete {
            let mut times = Vec::new();
            let slots = ((end - start) / ACCESS_BYTES as u64).max(1);
            for _ in 0..ACCESS_SAMPLES {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let at = start + (rng % slots) * ACCESS_BYTES as u64;
                let t0 = clock.now();
                let ok = target.seek(at).is_ok()
                    && matches!(target.read_block(&mut buf[..ACCESS_BYTES]), Ok(n) if n > 0);
                if ok {
                    times.push(elapsed_seconds(t0, clock.now()) * 1000.0);
                }
            }
            if !times.is_empty() {
                zone.access_ms = Some(times.iter().sum::<f64>() / times.len() as f64);
            }
        }
        let partial_and_empty =
            ended != Ending::Complete && zone.bytes_read == 0 && !zone.has_errors();
        if !partial_and_empty {
            out.push(zone);
        }
        if ended != Ending::Complete {
            break;
        }
        progress(index + 1, zones);
    }
    let rates: Vec<f64> = out.iter().filter_map(|z| z.read_mb_per_s).collect();
    let median = crate::stats::summarize(&rates).map(|s| s.median);
    if let Some(m) = median {
        for z in &mut out {
            z.slow = z.read_mb_per_s.is_some_and(|r| r < m / 2.0);
        }
    }
    Scan {
        size_bytes,
        quick,
        planned_zones: zones,
        zones: out,
        median_mb_per_s: median,
        ended,
        ended_at_lba,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use std::cell::Cell;
    use std::io;
    use std::rc::Rc;
    use std::time::Duration;

    const MIB: u64 = 1 << 20;

    /// A disk whose reads take time by where they are: 1 ms per MiB, 10 ms per MiB in the slow
    /// range, and EIO where `bad` says; each read costs the clock what it takes. Its size can
    /// change under the scan (`shrink`: after that many reads, the new size), as a loop device
    /// after `losetup -c` or a disk pulled out: a read at or past its size gets 0 bytes.
    struct Disk {
        now: Rc<Cell<Duration>>,
        position: u64,
        size: u64,
        slow: std::ops::Range<u64>,
        bad: Box<dyn Fn(u64) -> bool>,
        reads: usize,
        shrink: Option<(usize, u64)>,
    }

    impl Disk {
        fn new(now: &Rc<Cell<Duration>>, size: u64) -> Disk {
            Disk {
                now: now.clone(),
                position: 0,
                size,
                slow: 0..0,
                bad: Box::new(|_| false),
                reads: 0,
                shrink: None,
            }
        }
    }

    impl TimingTarget for Disk {
        fn seek(&mut self, offset: u64) -> io::Result<u64> {
            self.position = offset;
            Ok(offset)
        }
        fn read_block(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.reads += 1;
            if let Some((after, size)) = self.shrink {
                if self.reads > after {
                    self.size = size;
                }
            }
            if self.position >= self.size {
                return Ok(0);
            }
            if (self.bad)(self.position) {
                return Err(io::Error::from_raw_os_error(libc::EIO));
            }
            let per_mib = if self.slow.contains(&self.position) {
                10
            } else {
                1
            };
            let cost = Duration::from_micros(per_mib * 1000 * buf.len() as u64 / (1 << 20))
                + Duration::from_micros(100);
            self.now.set(self.now.get() + cost);
            self.position += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush_buffer_cache(&mut self) -> Result<(), Error> {
            Ok(())
        }
        fn size_bytes(&mut self) -> Option<u64> {
            Some(self.size)
        }
    }

    struct FakeClock(Rc<Cell<Duration>>);

    impl Clock for FakeClock {
        fn now(&mut self) -> Duration {
            self.0.get()
        }
    }

    fn run(
        disk: &mut Disk,
        now: &Rc<Cell<Duration>>,
        zones: usize,
        stop: &dyn Fn() -> bool,
    ) -> Scan {
        let mut clock = FakeClock(now.clone());
        let mut buf = vec![0u8; BLOCK_BYTES];
        let size = disk.size;
        scan(
            disk,
            &mut clock,
            &mut buf,
            size,
            zones,
            false,
            &mut |_, _| {},
            stop,
        )
    }

    fn never() -> bool {
        false
    }

    #[test]
    fn slow_and_failing_zones_are_flagged_and_the_scan_goes_on() {
        let now = Rc::new(Cell::new(Duration::ZERO));
        let mut disk = Disk::new(&now, 100 * MIB);
        disk.slow = 20 * MIB..30 * MIB;
        disk.bad = Box::new(|at| (50 * MIB..51 * MIB).contains(&at));
        let mut clock = FakeClock(now.clone());
        let mut buf = vec![0u8; BLOCK_BYTES];
        let mut calls = 0;
        let result = scan(
            &mut disk,
            &mut clock,
            &mut buf,
            100 * MIB,
            10,
            false,
            &mut |done, total| {
                calls += 1;
                assert!(done <= total);
            },
            &never,
        );
        assert_eq!(calls, 10);
        assert_eq!(result.zones.len(), 10);
        assert_eq!(
            (result.ended, result.ended_at_lba),
            (Ending::Complete, None)
        );
        let slow: Vec<usize> = result
            .zones
            .iter()
            .filter(|z| z.slow)
            .map(|z| z.index)
            .collect();
        assert_eq!(slow, [2]);
        let failed: Vec<(usize, u64, Vec<ErrorRange>)> = result
            .zones
            .iter()
            .filter(|z| z.has_errors())
            .map(|z| (z.index, z.error_blocks, z.error_ranges.clone()))
            .collect();
        let range = ErrorRange {
            first_lba: 50 * MIB / 512,
            last_lba: 51 * MIB / 512 - 1,
        };
        assert_eq!(failed, [(5, 1, vec![range])]);
        // The failing zone still has a rate from the blocks that read.
        assert_eq!(result.zones[5].bytes_read, 9 * MIB);
        assert!(result.zones[5].read_mb_per_s.is_some());
        assert_eq!(
            (result.zones[0].first_lba, result.zones[9].last_lba),
            (0, 100 * MIB / 512 - 1)
        );
        let median = result.median_mb_per_s.unwrap();
        assert!(median > 900.0 && median < 1100.0, "{median}");
    }

    #[test]
    fn quick_reads_only_the_start_of_each_zone() {
        let now = Rc::new(Cell::new(Duration::ZERO));
        let mut disk = Disk::new(&now, 400 * MIB);
        let mut clock = FakeClock(now);
        let mut buf = vec![0u8; BLOCK_BYTES];
        let result = scan(
            &mut disk,
            &mut clock,
            &mut buf,
            400 * MIB,
            4,
            true,
            &mut |_, _| {},
            &never,
        );
        assert!(result.zones.iter().all(|z| z.bytes_read == QUICK_BYTES));
        assert!(result.zones.iter().all(|z| z.access_ms.is_some()));
    }

    #[test]
    fn a_device_that_shrinks_ends_the_scan_where_it_went_away() {
        let now = Rc::new(Cell::new(Duration::ZERO));
        let mut disk = Disk::new(&now, 100 * MIB);
        // After 30 reads (zones of 10 MiB, 4 access reads each: into zone 2), 25 MiB is left.
        disk.shrink = Some((30, 25 * MIB));
        let result = run(&mut disk, &now, 10, &never);
        assert_eq!(result.ended, Ending::DeviceWentAway);
        assert_eq!(result.ended_at_lba, Some(25 * MIB / 512));
        assert_eq!(result.zones.len(), 3, "zones 0, 1 and the part of 2 read");
        assert!(result.zones.iter().all(|z| !z.has_errors()));
        assert_eq!(result.zones[2].bytes_read, 5 * MIB);
        assert_eq!(result.planned_zones, 10);
    }

    #[test]
    fn a_2_tib_disk_failing_from_1_gib_on_holds_one_range_per_zone() {
        // The bug this guards: one entry per failed 1 MiB block, 2 million of them.
        let now = Rc::new(Cell::new(Duration::ZERO));
        let mut disk = Disk::new(&now, 2 << 40);
        disk.bad = Box::new(|at| at >= 1 << 30);
        let result = run(&mut disk, &now, 100, &never);
        assert_eq!(result.ended, Ending::Complete);
        let ranges: usize = result.zones.iter().map(|z| z.error_ranges.len()).sum();
        assert_eq!(ranges, 100, "one range per zone");
        let blocks: u64 = result.zones.iter().map(|z| z.error_blocks).sum();
        // Every failed MiB, and at most one shorter block at the end of each zone.
        let failed_mib = ((2u64 << 40) - (1 << 30)) / MIB;
        assert!(
            (failed_mib..=failed_mib + 100).contains(&blocks),
            "{blocks}"
        );
        let text = crate::report::surface::text("/dev/sdz", &result);
        assert!(text.len() < 20_000, "{} bytes of text", text.len());
    }

    #[test]
    fn alternating_errors_list_a_bounded_number_of_ranges() {
        let now = Rc::new(Cell::new(Duration::ZERO));
        let mut disk = Disk::new(&now, 100 * MIB);
        disk.bad = Box::new(|at| (at / MIB) % 2 == 1);
        let result = run(&mut disk, &now, 1, &never);
        let zone = &result.zones[0];
        assert_eq!(zone.error_blocks, 50);
        assert_eq!(zone.error_ranges.len(), MAX_RANGES_PER_ZONE);
        assert_eq!(
            zone.error_ranges_not_listed,
            50 - MAX_RANGES_PER_ZONE as u64
        );
        assert_eq!(
            zone.error_ranges[0],
            ErrorRange {
                first_lba: MIB / 512,
                last_lba: 2 * MIB / 512 - 1
            }
        );
    }

    #[test]
    fn a_stop_keeps_the_zones_read() {
        let now = Rc::new(Cell::new(Duration::ZERO));
        let mut disk = Disk::new(&now, 100 * MIB);
        let asked = Cell::new(0);
        let stop = || {
            asked.set(asked.get() + 1);
            asked.get() > 25
        };
        let result = run(&mut disk, &now, 10, &stop);
        assert_eq!(result.ended, Ending::Stopped);
        assert_eq!(result.ended_at_lba, Some(25 * MIB / 512));
        assert_eq!(result.zones.len(), 3);
        assert_eq!(result.zones[2].bytes_read, 5 * MIB);
    }
}
