//! `--fibmap FILE` (reference §4.12): a file's extents as hdparm 9.65's fibmap.c builds and
//! prints them, from FIEMAP extents or from FIBMAP's block numbers, in absolute LBAs of the
//! disk (the file system's start plus its blocks).
//!
//! Owns: the extent type, the two ways of building extents (FIEMAP's byte extents, FIBMAP's
//! per-block numbers coalesced into runs, holes included), the header and the rows, byte for
//! byte. Must not: call the kernel (the exec layer hands in what `device` read).

/// `--fibmap`'s JSON section (`fibmap`): the file, its file system's geometry, and the
/// extents printed, in absolute LBAs of the disk.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct FibmapReport {
    pub file: String,
    #[schemars(range(min = 1))]
    pub filesystem_block_bytes: u32,
    pub start_lba: u64,
    #[schemars(range(min = 1))]
    pub sector_bytes: u32,
    pub extents: Vec<FibmapExtent>,
}

/// One extent of [`FibmapReport`]; `begin_lba` and `end_lba` are null for a hole or an
/// extent whose place is unknown.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct FibmapExtent {
    pub byte_offset: u64,
    pub begin_lba: Option<u64>,
    pub end_lba: Option<u64>,
    pub sectors: u64,
}

impl FibmapReport {
    /// The section for the extents `shown` (the rows printed), with hdparm's arithmetic.
    pub fn new(
        file: &str,
        filesystem_block_bytes: u32,
        start_lba: u64,
        sector_bytes: u32,
        sectors_per_block: u32,
        shown: &[FileExtent],
    ) -> FibmapReport {
        let spb = u64::from(sectors_per_block);
        let extents = shown
            .iter()
            .map(|e| {
                let placed = e.first_block != 0;
                FibmapExtent {
                    byte_offset: e.byte_offset,
                    begin_lba: placed
                        .then(|| start_lba.wrapping_add(e.first_block.wrapping_mul(spb))),
                    end_lba: placed.then(|| {
                        start_lba
                            .wrapping_add(e.last_block.wrapping_add(1).wrapping_mul(spb))
                            .wrapping_sub(1)
                    }),
                    sectors: e.block_count.wrapping_mul(spb),
                }
            })
            .collect();
        FibmapReport {
            file: file.to_string(),
            filesystem_block_bytes,
            start_lba,
            sector_bytes,
            extents,
        }
    }
}

/// One extent as hdparm keeps it, in file system blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileExtent {
    pub byte_offset: u64,
    /// First file system block; 0 for a hole or an extent whose place is unknown.
    pub first_block: u64,
    pub last_block: u64,
    pub block_count: u64,
}

/// FIEMAP flags that make hdparm show an extent without LBAs: UNKNOWN, DELALLOC (not yet
/// allocated), NOT_ALIGNED (linux/fiemap.h 0x2, 0x4, 0x100).
const EXTENT_UNKNOWN: u32 = 0x2 | 0x4 | 0x100;

impl FileExtent {
    /// An extent from FIEMAP (bytes), in file system blocks of `blksize` bytes.
    pub fn from_fiemap(logical: u64, physical: u64, length: u64, flags: u32, blksize: u32) -> Self {
        if flags & EXTENT_UNKNOWN != 0 || blksize == 0 {
            // FIEMAP's length of such an extent is garbage, hdparm says: no count either.
            return FileExtent {
                byte_offset: logical,
                ..Default::default()
            };
        }
        let blksize = u64::from(blksize);
        let first = physical / blksize;
        let len = length / blksize;
        FileExtent {
            byte_offset: logical,
            first_block: first,
            last_block: first.wrapping_add(len).wrapping_sub(1),
            block_count: len,
        }
    }

    /// The row hdparm prints for it.
    pub fn row(&self, sectors_per_block: u32, start_lba: u64) -> String {
        let spb = u64::from(sectors_per_block);
        let sectors = self.block_count.wrapping_mul(spb);
        let lbas = if self.first_block != 0 {
            let begin = start_lba.wrapping_add(self.first_block.wrapping_mul(spb));
            let end = start_lba
                .wrapping_add(self.last_block.wrapping_add(1).wrapping_mul(spb))
                .wrapping_sub(1);
            format!("{begin:10} {end:10}")
        } else {
            "      -          -   ".to_string()
        };
        let len = if self.first_block == 0 && sectors == 0 {
            "      -   ".to_string()
        } else {
            format!("{sectors:10}")
        };
        format!("{:12} {lbas} {len}\n", self.byte_offset)
    }
}

/// hdparm's header: the file, the block size, where the file system begins, the sector size,
/// and the column names.
pub fn header(file: &str, blksize: u32, start_lba: u64, sector_bytes: u32) -> String {
    format!(
        "\n{file}:\n filesystem blocksize {blksize}, begins at LBA {start_lba}; assuming {sector_bytes} byte sectors.\n{:>12} {:>10} {:>10} {:>10}\n",
        "byte_offset", "begin_LBA", "end_LBA", "sectors"
    )
}

/// FIBMAP's block numbers coalesced into extents as hdparm does: a block that follows the
/// previous one's last block continues its extent, anything else starts a new one. A hole (0)
/// gets the last block "all ones", whose successor wraps to 0: consecutive holes merge into
/// one, and never with data. The last extent is emitted by [`FibmapRuns::finish`].
#[derive(Debug, Default)]
pub struct FibmapRuns {
    current: Option<FileExtent>,
    index: u64,
}

const HOLE_LAST: u64 = u64::MAX;

impl FibmapRuns {
    /// Adds the block number of the next file block (`blksize` bytes each); returns the
    /// extent this one closes, if any.
    pub fn push(&mut self, block: u32, blksize: u32) -> Option<FileExtent> {
        let block = u64::from(block);
        let last = if block != 0 { block } else { HOLE_LAST };
        let index = self.index;
        self.index += 1;
        if let Some(cur) = self.current.as_mut() {
            if block == cur.last_block.wrapping_add(1) {
                cur.last_block = last;
                cur.block_count += 1;
                return None;
            }
        }
        let closed = self.current.take();
        self.current = Some(FileExtent {
            byte_offset: index.wrapping_mul(u64::from(blksize)),
            first_block: block,
            last_block: last,
            block_count: 1,
        });
        closed
    }

    /// The extent still open at the end (hdparm prints it after the loop; an empty file has
    /// none, and hdparm prints one empty row for it separately).
    pub fn finish(self) -> Option<FileExtent> {
        self.current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_as_hdparm() {
        assert_eq!(
            header("/mnt/f", 4096, 2048, 512),
            "\n/mnt/f:\n filesystem blocksize 4096, begins at LBA 2048; assuming 512 byte sectors.\n byte_offset  begin_LBA    end_LBA    sectors\n"
        );
    }

    #[test]
    fn rows_as_hdparm() {
        let e = FileExtent::from_fiemap(0, 34_603_008, 16384, 0x1, 4096);
        assert_eq!(
            e,
            FileExtent {
                byte_offset: 0,
                first_block: 8448,
                last_block: 8451,
                block_count: 4
            }
        );
        assert_eq!(
            e.row(8, 2048),
            "           0      69632      69663         32\n"
        );
        // An empty file's row, and an extent of unknown place.
        assert_eq!(
            FileExtent::default().row(8, 2048),
            "           0       -          -          -   \n"
        );
        let e = FileExtent::from_fiemap(8192, 0, 4096, 0x4 | 0x1, 4096);
        assert_eq!(
            e.row(8, 2048),
            "        8192       -          -          -   \n"
        );
    }

    #[test]
    fn fibmap_runs_coalesce_holes_and_keep_them_apart_from_data() {
        let mut runs = FibmapRuns::default();
        let blocks = [100, 101, 102, 0, 0, 200, 201];
        let mut out: Vec<FileExtent> = blocks.iter().filter_map(|&b| runs.push(b, 4096)).collect();
        out.extend(runs.finish());
        assert_eq!(
            out,
            vec![
                FileExtent {
                    byte_offset: 0,
                    first_block: 100,
                    last_block: 102,
                    block_count: 3
                },
                FileExtent {
                    byte_offset: 12288,
                    first_block: 0,
                    last_block: u64::MAX,
                    block_count: 2
                },
                FileExtent {
                    byte_offset: 20480,
                    first_block: 200,
                    last_block: 201,
                    block_count: 2
                },
            ]
        );
        // A hole's row shows its length in sectors.
        assert_eq!(
            out[1].row(8, 0),
            "       12288       -          -            16\n"
        );
    }
}
