//! The file helpers, which take a file instead of a device (reference §4.12): `--fibmap FILE`
//! prints where the file's blocks lie on the disk, `--fallocate KiB FILE` creates a file with
//! its space allocated and nothing written. hdparm 9.65's messages, order and results;
//! the exit status follows the error classes (DIFFERENCES.md).
//!
//! Must not: call the kernel other than through `device::filemap`; render other than through
//! `report::filemap`.

use crate::cli::defs as d;
use crate::device::filemap::{self, StartError};
use crate::device::StartLba;
use crate::error::{strerror, Error, ErrorClass};
use crate::exec::output::Output;
use crate::report::filemap::{header, FibmapRuns, FileExtent};
use std::path::Path;

/// `--fibmap FILE`.
pub fn fibmap(path: &Path, out: &mut Output) {
    let name = path.to_string_lossy().into_owned();
    out.begin_device(&name, true);
    fibmap_file(path, &name, out);
    out.end_device();
}

fn fibmap_file(path: &Path, name: &str, out: &mut Output) {
    let file = match filemap::open_for_map(path) {
        Ok(f) => f,
        Err(e) => {
            out.error(&Error::os(ErrorClass::CannotOpen, name, &e));
            return;
        }
    };
    if !file.is_regular {
        out.error(&Error::usage(format!("{name}: not a regular file")));
        return;
    }
    let (start_lba, sector_bytes) = match filemap::fs_start(file.st_dev) {
        Ok((StartLba::Known(start), bytes)) => (start, bytes),
        Ok((StartLba::Unknown, _)) => {
            out.error(&Error::failed(
                "Unable to determine start offset LBA for device, aborting.",
            ));
            return;
        }
        Err(StartError::NotFound(major, minor)) => {
            out.error(&Error::new(
                ErrorClass::CannotOpen,
                format!("{major},{minor}: device not found in /dev"),
            ));
            return;
        }
        Err(StartError::Open(node, e)) => {
            out.error(&Error::os(
                ErrorClass::CannotOpen,
                &node.to_string_lossy(),
                &e,
            ));
            return;
        }
        Err(StartError::Geometry(e)) => {
            let err = e.io_error();
            out.error(&Error::new(
                ErrorClass::of_io(err),
                format!("{}: {}", e.label(), strerror(err)),
            ));
            return;
        }
    };
    let blksize = match file.block_size() {
        Ok(b) if b > 0 => b,
        _ => {
            out.error(&Error::failed("Unable to determine block size, aborting."));
            return;
        }
    };
    let sectors_per_block = blksize / sector_bytes.max(1);
    out.text(&header(name, blksize, start_lba, sector_bytes));
    let mut shown = Vec::new();
    let mut row = |e: FileExtent, out: &mut Output| {
        out.text(&e.row(sectors_per_block, start_lba));
        shown.push(e);
    };
    if file.size == 0 {
        row(FileExtent::default(), out);
    } else if walk_fiemap(&file, blksize, &mut |e| row(e, out)).is_err() {
        // As hdparm: FIEMAP's failure is silent, FIBMAP's is printed, neither fails the run.
        if let Err(e) = walk_fibmap(&file, blksize, &mut |e| row(e, out)) {
            out.note(&format!("ioctl(FIBMAP): {}", strerror(&e)));
        }
    }
    let report = crate::report::filemap::FibmapReport::new(
        name,
        blksize,
        start_lba,
        sector_bytes,
        sectors_per_block,
        &shown,
    );
    out.put(&report);
}

/// hdparm's FIEMAP walk: batches until one maps nothing (the LAST flag is not trusted: ext4
/// once set it early).
fn walk_fiemap(
    file: &filemap::MappedFile,
    blksize: u32,
    row: &mut dyn FnMut(FileExtent),
) -> std::io::Result<()> {
    let mut start = 0u64;
    loop {
        let batch = file.fiemap(start)?;
        let Some(last) = batch.last() else {
            return Ok(());
        };
        let next = last.logical.saturating_add(last.length);
        for x in &batch {
            row(FileExtent::from_fiemap(
                x.logical, x.physical, x.length, x.flags, blksize,
            ));
        }
        if next <= start {
            // A file system answering the same batch again would loop for ever.
            return Ok(());
        }
        start = next;
    }
}

/// hdparm's FIBMAP walk, one call per file block.
fn walk_fibmap(
    file: &filemap::MappedFile,
    blksize: u32,
    row: &mut dyn FnMut(FileExtent),
) -> std::io::Result<()> {
    let blocks = file.size.div_ceil(u64::from(blksize));
    let mut runs = FibmapRuns::default();
    for index in 0..blocks {
        // FIBMAP takes a 32-bit block index, as in hdparm.
        let block = file.fibmap(index as u32)?;
        if let Some(e) = runs.push(block, blksize) {
            row(e);
        }
    }
    if let Some(e) = runs.finish() {
        row(e);
    }
    Ok(())
}

/// `--fallocate KiB FILE`; with `--dry-run`, its plan: what it would create, and the failure
/// a look at the name foresees (the file exists), with the real run's exit class.
pub fn fallocate(kib: u64, path: &Path, dry_run: bool, out: &mut Output) {
    let name = path.to_string_lossy().into_owned();
    out.begin_device(&name, true);
    if dry_run {
        let bytes = kib.saturating_mul(1024);
        let mut plan = crate::report::dry_run::Plan {
            steps: vec![crate::report::dry_run::Planned::File(format!(
                "{name}: a new file (mode 0600) with {kib} KiB ({bytes} bytes) allocated and none written (fallocate), then synced"
            ))],
            ..Default::default()
        };
        let failure = filemap::fallocate_probe(path)
            .err()
            .map(|e| Error::os(ErrorClass::Failed, &name, &e));
        if let Some(e) = &failure {
            plan.would_fail.push((e.class, e.message.clone()));
        }
        out.text(&crate::report::dry_run::mode_text(
            "nothing was created or written",
            &plan,
        ));
        out.put(&crate::report::dry_run::PlanJson::of(&plan));
        for error in crate::exec::access::dry_run::real_run_errors(&name, &plan) {
            out.error(&error);
        }
        out.end_device();
        return;
    }
    out.action("fallocate", &d::FALLOCATE);
    if let Err(e) = filemap::fallocate_new(path, kib.saturating_mul(1024)) {
        out.error(&Error::os(ErrorClass::Failed, &name, &e));
    }
    out.end_device();
}
