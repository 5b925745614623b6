//! `--surface` (ours): a read scan of the whole device, zone by zone, as a loop over an
//! injected target and clock (so the slow-zone and error rules are tested without a disk).
//!
//! The device is cut into `zones` equal zones. Each zone is read sequentially in 1 MiB blocks
//! (all of it, or its first [`QUICK_BYTES`] with `quick`), timed to give its read rate; then
//! [`ACCESS_SAMPLES`] 4 KiB reads at pseudo-random aligned offsets inside it give its access
//! time. A read error never stops the scan: the block is counted as failed, skipped, and the
//! scan goes on with the next one. A zone is flagged slow below half the median rate.
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

/// What one zone gave.
#[derive(Clone, Debug, PartialEq, Serialize)]
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
    /// Blocks that failed to read, by their first sector.
    pub error_lbas: Vec<u64>,
    /// Below half the median rate.
    pub slow: bool,
}

/// The whole scan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scan {
    pub size_bytes: u64,
    pub quick: bool,
    pub zones: Vec<Zone>,
    pub median_mb_per_s: Option<f64>,
}

/// Scans `size_bytes` of `target` in `zones` zones. `buf` must hold [`BLOCK_BYTES`] (aligned for
/// O_DIRECT by the caller). `progress(done, total)` is called after each zone.
pub fn scan(
    target: &mut dyn TimingTarget,
    clock: &mut dyn Clock,
    buf: &mut [u8],
    size_bytes: u64,
    zones: usize,
    quick: bool,
    progress: &mut dyn FnMut(usize, usize),
) -> Scan {
    let zones = zones.max(1);
    let zone_bytes = (size_bytes / zones as u64) / 512 * 512;
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut out = Vec::with_capacity(zones);
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
            error_lbas: Vec::new(),
            slow: false,
        };
        let began = clock.now();
        let mut offset = start;
        while offset < start + to_read {
            let want = ((start + to_read - offset) as usize)
                .min(BLOCK_BYTES)
                .min(buf.len());
            let ok = target.seek(offset).is_ok()
                && matches!(target.read_block(&mut buf[..want]), Ok(n) if n > 0);
            if ok {
                zone.bytes_read += want as u64;
            } else {
                zone.error_lbas.push(offset / 512);
            }
            offset += want as u64;
        }
        let seconds = elapsed_seconds(began, clock.now());
        if zone.bytes_read > 0 && seconds > 0.0 {
            zone.read_mb_per_s = Some(zone.bytes_read as f64 / 1e6 / seconds);
        }
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
        out.push(zone);
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
        zones: out,
        median_mb_per_s: median,
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

    /// A disk whose reads take time by where they are: 1 ms per MiB, 10 ms per MiB in the slow
    /// range, and EIO in the bad range; each read costs the clock what it takes.
    struct Disk {
        now: Rc<Cell<Duration>>,
        position: u64,
        slow: std::ops::Range<u64>,
        bad: std::ops::Range<u64>,
    }

    impl TimingTarget for Disk {
        fn seek(&mut self, offset: u64) -> io::Result<u64> {
            self.position = offset;
            Ok(offset)
        }
        fn read_block(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.bad.contains(&self.position) {
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
    }

    struct FakeClock(Rc<Cell<Duration>>);

    impl Clock for FakeClock {
        fn now(&mut self) -> Duration {
            self.0.get()
        }
    }

    #[test]
    fn slow_and_failing_zones_are_flagged_and_the_scan_goes_on() {
        let now = Rc::new(Cell::new(Duration::ZERO));
        let mib = 1u64 << 20;
        let mut disk = Disk {
            now: now.clone(),
            position: 0,
            slow: 20 * mib..30 * mib,
            bad: 50 * mib..51 * mib,
        };
        let mut clock = FakeClock(now);
        let mut buf = vec![0u8; BLOCK_BYTES];
        let mut calls = 0;
        let result = scan(
            &mut disk,
            &mut clock,
            &mut buf,
            100 * mib,
            10,
            false,
            &mut |done, total| {
                calls += 1;
                assert!(done <= total);
            },
        );
        assert_eq!(calls, 10);
        assert_eq!(result.zones.len(), 10);
        let slow: Vec<usize> = result
            .zones
            .iter()
            .filter(|z| z.slow)
            .map(|z| z.index)
            .collect();
        assert_eq!(slow, [2]);
        let failed: Vec<(usize, Vec<u64>)> = result
            .zones
            .iter()
            .filter(|z| !z.error_lbas.is_empty())
            .map(|z| (z.index, z.error_lbas.clone()))
            .collect();
        assert_eq!(failed, [(5, vec![50 * mib / 512])]);
        // The failing zone still has a rate from the blocks that read.
        assert_eq!(result.zones[5].bytes_read, 9 * mib);
        assert!(result.zones[5].read_mb_per_s.is_some());
        assert_eq!(
            (result.zones[0].first_lba, result.zones[9].last_lba),
            (0, 100 * mib / 512 - 1)
        );
        let median = result.median_mb_per_s.unwrap();
        assert!(median > 900.0 && median < 1100.0, "{median}");
    }

    #[test]
    fn quick_reads_only_the_start_of_each_zone() {
        let now = Rc::new(Cell::new(Duration::ZERO));
        let mib = 1u64 << 20;
        let mut disk = Disk {
            now: now.clone(),
            position: 0,
            slow: 0..0,
            bad: 0..0,
        };
        let mut clock = FakeClock(now);
        let mut buf = vec![0u8; BLOCK_BYTES];
        let result = scan(
            &mut disk,
            &mut clock,
            &mut buf,
            400 * mib,
            4,
            true,
            &mut |_, _| {},
        );
        assert!(result.zones.iter().all(|z| z.bytes_read == QUICK_BYTES));
        assert!(result.zones.iter().all(|z| z.access_ms.is_some()));
    }
}
