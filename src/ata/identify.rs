//! The IDENTIFY DEVICE (and IDENTIFY PACKET DEVICE) data: 256 words with named accessors.
//!
//! Owns: the [`Identify`] type over `[u16; 256]` (host order, converted from the little-endian
//! wire layout), the derived values every option needs (capacity, logical sector size, feature
//! support as a tri-state [`Support`]), the byte checksum of ACS-4 §7.12.7.101 (word 255), and
//! the decoding of the two log pages `-I` consults (Sector Configuration log 0x2F, SATA
//! Settings log 0x30 page 8).
//!
//! Must not: print anything, or touch a device. The text of `-I`/`-i` lives in `report`.
//!
//! Word numbers and bit meanings are those of ATA/ATAPI-7 and ACS-4 §7.12.7 (IDENTIFY DEVICE
//! data); where hdparm 9.65 derives a value in its own (sometimes quirky) way, the accessor
//! says so and follows hdparm, because other options' output depends on it.

use super::values::Apm;

/// How many 16-bit words IDENTIFY returns.
pub const IDENTIFY_WORDS: usize = 256;

/// A word "is valid" when bits 15:14 are 01 (ACS-4 uses this for words 76-87, 93, 106, 209...).
const VALID_MASK: u16 = 0xC000;
const VALID_VALUE: u16 = 0x4000;

/// Word 255 low byte when the integrity word is set (ACS-4 §7.12.7.101).
pub const INTEGRITY_SIGNATURE: u8 = 0xA5;

/// Tri-state support of a feature that can be switched on and off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Support {
    Unsupported,
    Disabled,
    Enabled,
}

impl Support {
    /// Builds the tri-state from "supported" and "enabled" bits.
    pub fn from_bits(supported: bool, enabled: bool) -> Self {
        match (supported, enabled) {
            (false, _) => Support::Unsupported,
            (true, false) => Support::Disabled,
            (true, true) => Support::Enabled,
        }
    }
    pub fn is_supported(self) -> bool {
        self != Support::Unsupported
    }
    pub fn is_enabled(self) -> bool {
        self == Support::Enabled
    }
    /// None when unsupported, else whether it is on (the shape the `-A`/`-W`/`-i` lines take).
    pub fn enabled(self) -> Option<bool> {
        self.is_supported().then_some(self.is_enabled())
    }
}

/// What word 0 (general configuration) says the device is, as hdparm's `-I` classifies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceClass {
    /// CompactFlash: word 0 is 0x848A or 0x844A, or word 83 advertises the CFA feature set.
    Cfa,
    /// Word 0 bit 15 clear.
    Ata,
    /// Word 0 bits 15:14 = 10; the peripheral device type (bits 12:8) is carried.
    Atapi { device_type: u8 },
    /// Word 0 bits 15:14 = 11: not defined by any standard.
    Unknown,
}

/// The SECURITY status of word 128 (ACS-4 §7.12.7.59).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SecurityStatus {
    pub supported: bool,
    pub enabled: bool,
    pub locked: bool,
    pub frozen: bool,
    pub count_expired: bool,
    pub enhanced_erase_supported: bool,
    /// Bit 8: master password capability is Maximum (else High).
    pub level_maximum: bool,
}

/// Device Sleep timings from the SATA Settings log (0x30 page 8), as hdparm reads them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DevSleepTimings {
    /// DEVSLP Exit Timeout (byte 0x31), in ms; 0 means "use the default".
    pub deto_ms: u8,
    /// Minimum DEVSLP Assertion Time (byte 0x30, 5 bits), in ms; 0 means "use the default".
    pub mdat_ms: u8,
}

/// IDENTIFY data: 256 words in host order.
#[derive(Clone, PartialEq, Eq)]
pub struct Identify {
    words: [u16; IDENTIFY_WORDS],
}

impl std::fmt::Debug for Identify {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identify")
            .field("model", &self.model())
            .field("serial", &self.serial())
            .finish_non_exhaustive()
    }
}

impl Identify {
    /// From words already in host order.
    pub fn from_words(words: [u16; IDENTIFY_WORDS]) -> Self {
        Identify { words }
    }

    /// From the 512 bytes a device returns (little-endian words: word N = byte 2N | byte 2N+1 << 8).
    pub fn from_le_bytes(bytes: &[u8; 512]) -> Self {
        let mut words = [0u16; IDENTIFY_WORDS];
        for (i, w) in words.iter_mut().enumerate() {
            *w = u16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]);
        }
        Identify { words }
    }

    /// The 512 bytes in the device's little-endian layout (what `--Istdout`'s words encode).
    pub fn to_le_bytes(&self) -> [u8; 512] {
        let mut out = [0u8; 512];
        for (i, w) in self.words.iter().enumerate() {
            let b = w.to_le_bytes();
            out[2 * i] = b[0];
            out[2 * i + 1] = b[1];
        }
        out
    }

    pub fn words(&self) -> &[u16; IDENTIFY_WORDS] {
        &self.words
    }

    /// Word `n`; words past 255 read as 0 so callers never index out of bounds.
    pub fn word(&self, n: usize) -> u16 {
        self.words.get(n).copied().unwrap_or(0)
    }

    /// Bit `b` of word `n`.
    pub fn bit(&self, n: usize, b: u32) -> bool {
        b < 16 && self.word(n) & (1u16 << b) != 0
    }

    /// Bits 15:14 of word `n` are 01.
    pub fn word_valid(&self, n: usize) -> bool {
        self.word(n) & VALID_MASK == VALID_VALUE
    }

    /// Word `n` holds a value: neither 0x0000 nor 0xFFFF (the two "not reported" patterns).
    pub fn word_reported(&self, n: usize) -> bool {
        let w = self.word(n);
        w != 0 && w != 0xFFFF
    }

    // ---- strings -------------------------------------------------------------------------

    /// The raw bytes of an ATA string field: `len` words from `start`, each word's high byte
    /// first (ATA strings are stored byte-swapped within each word).
    pub fn string_bytes(&self, start: usize, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len * 2);
        for n in start..start + len {
            let w = self.word(n);
            out.push((w >> 8) as u8);
            out.push(w as u8);
        }
        out
    }

    fn trimmed_string(&self, start: usize, len: usize) -> String {
        let bytes: Vec<u8> = self
            .string_bytes(start, len)
            .into_iter()
            .filter(|&b| b != 0)
            .collect();
        String::from_utf8_lossy(&bytes).trim().to_string()
    }

    /// Model number (words 27-46), without leading/trailing spaces.
    pub fn model(&self) -> String {
        self.trimmed_string(27, 20)
    }
    /// Serial number (words 10-19), without leading/trailing spaces.
    pub fn serial(&self) -> String {
        self.trimmed_string(10, 10)
    }
    /// Firmware revision (words 23-26), without leading/trailing spaces.
    pub fn firmware(&self) -> String {
        self.trimmed_string(23, 4)
    }

    // ---- device class --------------------------------------------------------------------

    /// The device class as `-I` decides it (CFA is tested first, as hdparm does).
    pub fn device_class(&self) -> DeviceClass {
        let w0 = self.word(0);
        if w0 == 0x848A || w0 == 0x844A || self.word(83) & 0xC004 == 0x4004 {
            DeviceClass::Cfa
        } else if w0 & 0x8000 == 0 {
            DeviceClass::Ata
        } else if w0 & 0x4000 == 0 {
            DeviceClass::Atapi {
                device_type: ((w0 >> 8) & 0x1F) as u8,
            }
        } else {
            DeviceClass::Unknown
        }
    }

    /// Word 0 bit 7: removable media.
    pub fn removable_media(&self) -> bool {
        self.bit(0, 7)
    }

    /// Word 0, the general configuration (bit names in `-i`'s `Config={...}`).
    pub fn general_configuration(&self) -> u16 {
        self.word(0)
    }

    // ---- geometry and obsolete ATA-1 words ----------------------------------------------

    /// Words 1, 3, 6: the default cylinders, heads and sectors per track (obsolete since ATA-6).
    pub fn default_chs(&self) -> (u16, u16, u16) {
        (self.word(1), self.word(3), self.word(6))
    }

    /// Words 54-56: the current cylinders, heads and sectors per track.
    pub fn current_chs(&self) -> (u16, u16, u16) {
        (self.word(54), self.word(55), self.word(56))
    }

    /// Word 53 bit 0: words 54-58 (current CHS) are valid.
    pub fn current_chs_valid(&self) -> bool {
        self.bit(53, 0)
    }

    /// Words 4 and 5 (ATA-1): unformatted bytes per track and per sector.
    pub fn ata1_track_and_sector_bytes(&self) -> (u16, u16) {
        (self.word(4), self.word(5))
    }

    /// Word 22 (ATA-1 to ATA-4): vendor-specific bytes of READ/WRITE LONG ("ECC bytes").
    pub fn ecc_bytes(&self) -> u16 {
        self.word(22)
    }

    /// Word 21 when it holds a value (neither 0 nor 0xFFFF): the buffer size in 512-byte units.
    pub fn buffer_size_reported(&self) -> Option<u16> {
        self.word_reported(21).then(|| self.word(21))
    }

    /// Word 48 (ATA-1): double-word I/O is supported (any non-zero value, as hdparm reads it).
    pub fn double_word_io(&self) -> bool {
        self.word(48) != 0
    }

    /// Word 20 (retired): the buffer type code.
    pub fn buffer_type(&self) -> u16 {
        self.word(20)
    }

    /// Word 21 (retired): the buffer size in 512-byte units.
    pub fn buffer_size_sectors(&self) -> u16 {
        self.word(21)
    }

    // ---- ATAPI -------------------------------------------------------------------------

    /// Word 0 bits 6:5 (ATAPI): the DRQ response time code.
    pub fn atapi_drq_response_code(&self) -> u16 {
        (self.word(0) >> 5) & 0x3
    }

    /// Word 0 bits 1:0 (ATAPI): the command packet size code (0: 12 bytes, 1: 16 bytes).
    pub fn atapi_packet_size_code(&self) -> u16 {
        self.word(0) & 0x3
    }

    /// Word 49 bit 15 (ATAPI): interleaved DMA is supported.
    pub fn atapi_interleaved_dma(&self) -> bool {
        self.bit(49, 15)
    }

    /// Word 49 bit 14 (ATAPI): command queuing is supported.
    pub fn atapi_command_queuing(&self) -> bool {
        self.bit(49, 14)
    }

    /// Word 49 bit 13 (ATAPI): overlapped operation is supported.
    pub fn atapi_overlap(&self) -> bool {
        self.bit(49, 13)
    }

    /// Word 49 bit 12 (ATAPI): the ATAPI soft reset is required.
    pub fn atapi_soft_reset_required(&self) -> bool {
        self.bit(49, 12)
    }

    /// Words 71-72 (ATAPI): typical time from PACKET to bus release, and from SERVICE to
    /// BSY clear, in µs (0: not reported).
    pub fn atapi_overlap_times_us(&self) -> (u16, u16) {
        (self.word(71), self.word(72))
    }

    /// Word 62 bit 15 (SATA ATAPI): DMADIR is required, and the word carries the DMA modes.
    pub fn atapi_dmadir_required(&self) -> bool {
        self.bit(62, 15)
    }

    // ---- transfer modes and timings -----------------------------------------------------

    /// Word 49 bit 13 (ATA): the standby timer takes the standard values.
    pub fn standby_timer_standard_values(&self) -> bool {
        self.bit(49, 13)
    }

    /// Word 50 bit 0 when word 50 is valid: the device has a vendor-specific minimum standby
    /// timer value.
    pub fn standby_timer_device_minimum(&self) -> Option<bool> {
        self.word_valid(50).then(|| self.bit(50, 0))
    }

    /// Word 52 bits 15:8: the single-word DMA timing mode of ATA-1 (obsolete).
    pub fn dma_timing_mode(&self) -> u16 {
        self.word(52) >> 8
    }

    /// Word 52 holds a value (the ATA-1 single-word DMA timing mode).
    pub fn dma_timing_word_reported(&self) -> bool {
        self.word(52) != 0
    }

    /// Word 49 bit 11: IORDY is supported.
    pub fn iordy_supported(&self) -> bool {
        self.bit(49, 11)
    }

    /// Word 49 bit 10: IORDY can be disabled.
    pub fn iordy_can_be_disabled(&self) -> bool {
        self.bit(49, 10)
    }

    /// Word 51 bits 15:8: the PIO data transfer cycle timing mode (obsolete).
    pub fn pio_timing_mode(&self) -> u16 {
        self.word(51) >> 8
    }

    /// Word 53 bit 1: words 64-70 (advanced PIO modes and cycle times) are valid.
    pub fn timing_words_valid(&self) -> bool {
        self.bit(53, 1)
    }

    /// Word 53 bit 2: word 88 (Ultra DMA modes) is valid.
    pub fn udma_word_valid(&self) -> bool {
        self.bit(53, 2)
    }

    /// Word 62: single-word DMA modes (bits 2:0 supported, bits 10:8 selected; obsolete).
    pub fn sdma_modes(&self) -> u16 {
        self.word(62)
    }

    /// Word 63: multiword DMA modes (bits 2:0 supported, bits 10:8 selected).
    pub fn mdma_modes(&self) -> u16 {
        self.word(63)
    }

    /// Word 64: advanced PIO modes (bit 0 PIO 3, bit 1 PIO 4).
    pub fn advanced_pio_modes(&self) -> u16 {
        self.word(64)
    }

    /// Word 88: Ultra DMA modes (bits 6:0 supported, bits 14:8 selected).
    pub fn udma_modes(&self) -> u16 {
        self.word(88)
    }

    /// Words 65-66: minimum and recommended multiword DMA cycle times, in ns.
    pub fn dma_cycle_ns(&self) -> [u16; 2] {
        [self.word(65), self.word(66)]
    }

    /// Words 67-68: minimum PIO cycle times without and with IORDY flow control, in ns.
    pub fn pio_cycle_ns(&self) -> [u16; 2] {
        [self.word(67), self.word(68)]
    }

    // ---- capabilities and capacity ------------------------------------------------------

    /// Word 49 bit 9.
    pub fn lba_supported(&self) -> bool {
        self.bit(49, 9)
    }
    /// Word 49 bit 8.
    pub fn dma_supported(&self) -> bool {
        self.bit(49, 8)
    }

    /// Words 60-61: the 28-bit LBA user-addressable sector count (whatever word 49 says).
    pub fn lba28_sectors(&self) -> u32 {
        (u32::from(self.word(61)) << 16) | u32::from(self.word(60))
    }

    /// Words 100-103: the 48-bit (really 64-bit field) user-addressable sector count.
    pub fn lba48_sectors(&self) -> u64 {
        (u64::from(self.word(103)) << 48)
            | (u64::from(self.word(102)) << 32)
            | (u64::from(self.word(101)) << 16)
            | u64::from(self.word(100))
    }

    /// Words 57-58: current CHS capacity in sectors.
    pub fn chs_current_sectors(&self) -> u32 {
        (u32::from(self.word(58)) << 16) | u32::from(self.word(57))
    }

    /// hdparm's "48-bit supported": word 83 valid with bit 10, and word 86 bit 10 (enabled).
    pub fn supports_48bit(&self) -> bool {
        self.word(83) & 0xC400 == 0x4400 && self.bit(86, 10)
    }

    /// ACS-3 or later is claimed (word 80 bit 10).
    pub fn supports_acs3(&self) -> bool {
        self.bit(80, 10)
    }

    /// ACCESSIBLE MAX ADDRESS is supported (ACS-3 and word 119 bit 8), as hdparm tests it.
    pub fn supports_accessible_max_address(&self) -> bool {
        self.supports_acs3() && self.bit(119, 8)
    }

    /// The capacity hdparm uses for its guards and `-N` (reference §2.4): words 57-58, or
    /// 60-61 when LBA is supported, or 100-103 when word 83 is valid and word 86 bit 10 set.
    pub fn capacity_sectors(&self) -> u64 {
        if !self.lba_supported() {
            return u64::from(self.chs_current_sectors());
        }
        if self.word_valid(83) && self.bit(86, 10) {
            self.lba48_sectors()
        } else {
            u64::from(self.lba28_sectors())
        }
    }

    /// Logical sector size in bytes as hdparm computes it: 2 × (words 117-118 when word 106
    /// is valid and bit 12 is set, else 256). Wraps in 32 bits like hdparm's `unsigned int`.
    pub fn logical_sector_bytes(&self) -> u32 {
        let words_per_sector = if self.word_valid(106) && self.bit(106, 12) {
            (u32::from(self.word(118)) << 16) | u32::from(self.word(117))
        } else {
            256
        };
        words_per_sector.wrapping_mul(2)
    }

    /// Physical sector size in bytes: logical × 2^(word 106 bits 3:0) when word 106 is valid
    /// and bit 13 is set (wrapping in 32 bits, as hdparm).
    pub fn physical_sector_bytes(&self) -> u32 {
        let factor = if self.word_valid(106) && self.bit(106, 13) {
            1u32 << (self.word(106) & 0xF)
        } else {
            1
        };
        self.logical_sector_bytes().wrapping_mul(factor)
    }

    /// Word 209 (when valid): alignment of logical sector 0 within the first physical sector,
    /// in logical sectors.
    pub fn sector0_offset_sectors(&self) -> Option<u16> {
        self.word_valid(209).then(|| self.word(209) & 0x1FFF)
    }

    /// Word 47 low byte: the largest DRQ block for READ/WRITE MULTIPLE.
    pub fn max_multiple_sectors(&self) -> u8 {
        self.word(47) as u8
    }

    /// Word 59: the current multiple-sector setting when its valid bit (8) is set.
    pub fn current_multiple_sectors(&self) -> Option<u8> {
        self.bit(59, 8).then_some(self.word(59) as u8)
    }

    /// The same data with word 59 as hdparm's `-i` prints it: the multiple-sector count found
    /// by `-m`'s get with the valid bit set, or the valid bit cleared when none was found.
    pub fn with_multcount(&self, multcount: Option<u16>) -> Identify {
        let mut words = self.words;
        words[59] = match multcount {
            Some(m) => m | 0x100,
            None => words[59] & !0x100,
        };
        Identify { words }
    }

    /// Word 59 bits 7:0 whatever its valid bit says (`-i` shows them as `?N?` when invalid).
    pub fn current_multiple_sectors_raw(&self) -> u8 {
        self.word(59) as u8
    }

    /// Word 59 as `-m` reads it when the kernel has no count: bits 7:0 when bits 15:8 are
    /// exactly 0x01, else 0. hdparm tests the whole high byte, so a drive that also sets the
    /// SANITIZE bits (12 and up) reads as 0; kept.
    pub fn multcount_fallback(&self) -> u8 {
        if self.word(59) & 0xFF00 == 0x0100 {
            self.word(59) as u8
        } else {
            0
        }
    }

    /// Word 75 bits 4:0 plus one: the maximum queue depth.
    pub fn queue_depth(&self) -> u16 {
        (self.word(75) & 0x1F) + 1
    }

    /// Word 76 bits 3:1: the fastest SATA generation the drive supports, in Gbit/s (1.5, 3.0,
    /// 6.0); None for a drive that reports none (PATA, or word 76 not reported).
    pub fn sata_max_gbps(&self) -> Option<f64> {
        let w = self.word(76);
        if w == 0 || w == 0xFFFF {
            return None;
        }
        [(3, 6.0), (2, 3.0), (1, 1.5)]
            .into_iter()
            .find(|&(bit, _)| w & (1 << bit) != 0)
            .map(|(_, gbps)| gbps)
    }

    /// Word 76 bit 8: Native Command Queuing is supported.
    pub fn ncq_supported(&self) -> bool {
        self.bit(76, 8)
    }

    /// Word 83 bit 1, with word 83 valid: TCQ (READ/WRITE DMA QUEUED) is supported.
    pub fn tcq_supported(&self) -> bool {
        self.word_valid(83) && self.bit(83, 1)
    }

    /// Word 83 bit 10, with word 83 valid: the 48-bit Address feature set is supported
    /// (whether or not word 86 says it is enabled).
    pub fn lba48_feature_supported(&self) -> bool {
        self.word_valid(83) && self.bit(83, 10)
    }

    /// Words 57-58 read the other way round (high word first): ATA-1 left their order open.
    pub fn chs_current_sectors_swapped(&self) -> u32 {
        (u32::from(self.word(57)) << 16) | u32::from(self.word(58))
    }

    /// Word 59 bit 12: the SANITIZE feature set is supported.
    pub fn sanitize_supported(&self) -> bool {
        self.bit(59, 12)
    }

    // ---- features -----------------------------------------------------------------------

    /// Word 80 (major version); `None` when not reported.
    pub fn major_version(&self) -> Option<u16> {
        self.word_reported(80).then(|| self.word(80))
    }

    /// Word 80 as the drive wrote it (0 and 0xFFFF mean "not reported").
    pub fn major_version_word(&self) -> u16 {
        self.word(80)
    }

    /// Word 81 (minor version code).
    pub fn minor_version(&self) -> u16 {
        self.word(81)
    }

    /// Write cache: word 82 bit 5 / word 85 bit 5.
    pub fn write_cache(&self) -> Support {
        Support::from_bits(self.bit(82, 5), self.bit(85, 5))
    }

    /// Read look-ahead: word 82 bit 6 / word 85 bit 6.
    pub fn look_ahead(&self) -> Support {
        Support::from_bits(self.bit(82, 6), self.bit(85, 6))
    }

    /// Advanced Power Management as `-B` and `-I` test it: supported when word 83 is valid and
    /// has bit 3, enabled by word 86 bit 3, the level in word 91.
    pub fn apm(&self) -> Apm {
        Apm::decode(
            self.word(83) & 0xC008 == 0x4008,
            self.word(86),
            self.word(91),
        )
    }

    /// Advanced Power Management as `-i` tests it: word 83 bit 3 alone, without checking that
    /// the word is valid (hdparm's `-i` code is older than its `-B`).
    pub fn apm_unchecked(&self) -> Apm {
        Apm::decode(self.bit(83, 3), self.word(86), self.word(91))
    }

    /// Automatic Acoustic Management supported (word 83 bit 9, as `-M` tests it).
    pub fn acoustic_supported(&self) -> bool {
        self.bit(83, 9)
    }

    /// `-M`'s reading: the current acoustic level (word 94 bits 7:0) when AAM is supported.
    pub fn acoustic_level(&self) -> Option<u8> {
        self.acoustic_supported().then_some(self.word(94) as u8)
    }

    /// Word 94: (recommended, current) acoustic management values.
    pub fn acoustic_values(&self) -> (u8, u8) {
        let w = self.word(94);
        ((w >> 8) as u8, w as u8)
    }

    /// Write-Read-Verify: word 119 bit 1 / word 120 bit 1 (as hdparm's `-R` get tests it).
    pub fn write_read_verify(&self) -> Support {
        Support::from_bits(self.bit(119, 1), self.bit(120, 1))
    }

    /// What `-R` prints when write-read-verify is supported: word 120 & 2, so 0 or 2 rather
    /// than the mode (hdparm's quirk, kept because scripts read it).
    pub fn write_read_verify_shown(&self) -> Option<u16> {
        self.write_read_verify()
            .is_supported()
            .then_some(self.word(120) & 0x2)
    }

    /// FLUSH CACHE EXT is supported, as hdparm tests it before `-F` and `-W0`: word 83 bits
    /// 15:13 are 011 (valid, with the 48-bit and FLUSH CACHE EXT bits).
    pub fn flush_cache_ext_supported(&self) -> bool {
        self.word(83) & 0xE000 == 0x6000
    }

    /// Word 84 bit 8: a World Wide Name is reported in words 108-111.
    pub fn wwn_supported(&self) -> bool {
        self.bit(84, 8)
    }

    /// The 64-bit World Wide Name (words 108-111, most significant first) when word 84 says so.
    pub fn wwn(&self) -> Option<u64> {
        self.wwn_supported().then(|| {
            (u64::from(self.word(108)) << 48)
                | (u64::from(self.word(109)) << 32)
                | (u64::from(self.word(110)) << 16)
                | u64::from(self.word(111))
        })
    }

    /// Word 82 bit 1: the Security feature set is supported.
    pub fn security_feature_set_supported(&self) -> bool {
        self.bit(82, 1)
    }

    /// Word 128 as the drive wrote it (0: no security status reported).
    pub fn security_word(&self) -> u16 {
        self.word(128)
    }

    /// Words 89 and 90: the time the normal and the enhanced SECURITY ERASE UNIT take, in the
    /// drive's encoding (ACS-3 §7.12.7.32: bit 15 selects the 15-bit format).
    pub fn security_erase_time_words(&self) -> (u16, u16) {
        (self.word(89), self.word(90))
    }

    /// Word 92: the master password identifier, when reported.
    pub fn master_password_revision(&self) -> Option<u16> {
        self.word_reported(92).then(|| self.word(92))
    }

    /// Word 128 as flags.
    pub fn security_status(&self) -> SecurityStatus {
        SecurityStatus {
            supported: self.bit(128, 0),
            enabled: self.bit(128, 1),
            locked: self.bit(128, 2),
            frozen: self.bit(128, 3),
            count_expired: self.bit(128, 4),
            enhanced_erase_supported: self.bit(128, 5),
            level_maximum: self.bit(128, 8),
        }
    }

    /// Word 217: nominal media rotation rate (1 = non-rotating, 0x0401-0xFFFE = rpm).
    pub fn rotation_rate(&self) -> u16 {
        self.word(217)
    }

    /// Word 168 bits 3:0: nominal form factor code.
    pub fn form_factor(&self) -> u16 {
        self.word(168)
    }

    /// Word 105, when reported: the most 512-byte blocks of ranges one DATA SET MANAGEMENT
    /// command takes.
    pub fn trim_max_blocks(&self) -> Option<u16> {
        self.word_reported(105).then(|| self.word(105))
    }

    /// Word 127 bits 1:0 = 01: the Removable Media Status Notification feature set.
    pub fn removable_media_status_notification(&self) -> bool {
        self.word(127) & 3 == 1
    }

    /// Word 93 when valid: the hardware reset result.
    pub fn hardware_reset_result(&self) -> Option<u16> {
        self.word_valid(93).then(|| self.word(93))
    }

    /// Words 222-223: the transport major and minor version words.
    pub fn transport_versions(&self) -> (u16, u16) {
        (self.word(222), self.word(223))
    }

    /// Word 255: the integrity word (checksum in bits 15:8, signature in bits 7:0).
    pub fn integrity_word(&self) -> u16 {
        self.word(255)
    }

    /// Word 160 (CFA): the power mode 1 word.
    pub fn cfa_power_mode(&self) -> u16 {
        self.word(160)
    }

    /// Word 162 (CFA): the key management (CPRM) schemes, when reported.
    pub fn cfa_key_management(&self) -> Option<u16> {
        self.word_reported(162).then(|| self.word(162))
    }

    /// Word 163 (CFA): the advanced PIO and multiword DMA modes.
    pub fn cfa_advanced_modes(&self) -> u16 {
        self.word(163)
    }

    /// Word 164 (CFA): the PC Card I/O and memory Ultra DMA modes and cycle times.
    pub fn cfa_card_modes(&self) -> u16 {
        self.word(164)
    }

    /// Word 169 bit 0: DATA SET MANAGEMENT with TRIM is supported.
    pub fn trim_supported(&self) -> bool {
        self.bit(169, 0) && self.word(169) != 0xFFFF
    }

    // ---- checksum -----------------------------------------------------------------------

    /// Sum of all 512 bytes, modulo 256 (0 when the integrity word is correct).
    pub fn byte_sum(&self) -> u8 {
        self.words.iter().fold(0u8, |acc, &w| {
            acc.wrapping_add(w as u8).wrapping_add((w >> 8) as u8)
        })
    }

    /// Word 255 low byte is the 0xA5 signature.
    pub fn integrity_signature_present(&self) -> bool {
        self.word(255) as u8 == INTEGRITY_SIGNATURE
    }

    /// `Some(true)` when the signature is present and the bytes sum to 0; `None` without a
    /// signature (the checksum is then undefined).
    pub fn checksum_valid(&self) -> Option<bool> {
        self.integrity_signature_present()
            .then(|| self.byte_sum() == 0)
    }

    // ---- what `-I` needs from a live device ---------------------------------------------

    /// `-I` reads the Sector Configuration log (0x2F page 0) only when word 106 is valid.
    pub fn wants_sector_config_log(&self) -> bool {
        self.word_valid(106)
    }

    /// `-I` reads the SATA Settings log (0x30 page 8) only when word 78 bit 8 (DEVSLP) is set.
    pub fn wants_sata_settings_log(&self) -> bool {
        self.bit(78, 8)
    }

    /// hdparm's test before any READ LOG EXT. It means to test word 84 bit 5 (GPL) but writes
    /// a logical AND, so any non-zero word 84 passes (reference §2.5, quirk kept).
    pub fn log_ext_allowed(&self) -> bool {
        self.word(84) != 0
    }

    /// Whether the Host Protected Area feature set is supported (word 82 bit 10), or the drive
    /// has its ACS-3 successor, Accessible Max Address: then the native maximum can be read.
    pub fn native_max_readable(&self) -> bool {
        (self.word_reported(82) && self.bit(82, 10)) || self.supports_accessible_max_address()
    }

    /// Whether the SCT status page can be read for the temperature: SMART enabled (word 85
    /// bit 0) and SCT Command Transport supported (word 206 bit 0, ACS-3 §7.12.7.82; the word
    /// has no validity bits, so 0xFFFF counts as not reported).
    pub fn sct_status_readable(&self) -> bool {
        self.bit(85, 0) && self.word_reported(206) && self.bit(206, 0)
    }
}

/// The "logical sector size" fields of the valid descriptors of a Sector Configuration log
/// page (0x2F page 0), as the drive wrote them: one descriptor every 16 bytes in the first 128
/// (the eight hdparm reads), valid when byte 0 bit 7 is set, the size (little-endian 32 bits) at
/// bytes 4-7. ACS-4 gives the size in words; see [`supported_logical_sector_bytes`].
pub fn sector_config_sizes(page: &[u8; 512]) -> Vec<u32> {
    page[..128]
        .chunks_exact(16)
        .filter(|d| d[0] & 0x80 != 0)
        .map(|d| u32::from_le_bytes([d[4], d[5], d[6], d[7]]))
        .collect()
}

/// The sizes `-I` lists after "[ Supported:", in bytes, from the raw descriptor values.
///
/// hdparm 9.65 guesses the unit of the whole list from the drive's current logical sector
/// size (`logical_bytes`): a value equal to that size suggests bytes, a different value whose
/// double is that size suggests words. Words win; with no hint at all, words. In words every
/// value is doubled, wrapping in 32 bits. (Observed behaviour of the real program, checked
/// through an ioctl shim; a drive reporting 0-byte sectors shows the `!=`.)
pub fn supported_logical_sector_bytes(raw: &[u32], logical_bytes: u32) -> Vec<u32> {
    let in_words = raw
        .iter()
        .any(|&v| v != logical_bytes && v.wrapping_mul(2) == logical_bytes);
    let in_bytes = !in_words && raw.contains(&logical_bytes);
    raw.iter()
        .map(|&v| if in_bytes { v } else { v.wrapping_mul(2) })
        .collect()
}

/// DEVSLP timings from the SATA Settings log page (0x30 page 8), when its valid bit (byte 0x37
/// bit 7) is set.
pub fn sata_settings_devslp(page: &[u8; 512]) -> Option<DevSleepTimings> {
    (page[0x37] & 0x80 != 0).then_some(DevSleepTimings {
        deto_ms: page[0x31],
        mdat_ms: page[0x30] & 0x1F,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(words: &[(usize, u16)]) -> Identify {
        let mut w = [0u16; 256];
        for &(n, v) in words {
            w[n] = v;
        }
        Identify::from_words(w)
    }

    #[test]
    fn le_bytes_round_trip() {
        let mut b = [0u8; 512];
        b[0] = 0x5A;
        b[1] = 0x0C;
        b[510] = 0xA5;
        b[511] = 0x35;
        let id = Identify::from_le_bytes(&b);
        assert_eq!(id.word(0), 0x0C5A);
        assert_eq!(id.word(255), 0x35A5);
        assert_eq!(id.to_le_bytes(), b);
    }

    #[test]
    fn strings_are_byte_swapped_and_trimmed() {
        // "WDC " = 0x5744 0x4320
        let id = with(&[
            (27, 0x5744),
            (28, 0x4320),
            (29, 0x2020),
            (10, 0x2020),
            (11, 0x4142),
        ]);
        assert_eq!(id.model(), "WDC");
        assert_eq!(id.serial(), "AB");
        assert_eq!(&id.string_bytes(27, 2), b"WDC ");
    }

    #[test]
    fn capacity_follows_hdparm_rules() {
        let chs = with(&[(57, 0x1234), (58, 0x1)]);
        assert_eq!(chs.capacity_sectors(), 0x11234);
        let lba = with(&[(49, 0x200), (60, 0xFFFF), (61, 0x0FFF), (83, 0x4400)]);
        assert_eq!(lba.capacity_sectors(), 0x0FFF_FFFF);
        let lba48 = with(&[
            (49, 0x200),
            (83, 0x4400),
            (86, 0x0400),
            (100, 0xB0),
            (101, 0x6D70),
            (102, 0x74),
        ]);
        assert_eq!(lba48.capacity_sectors(), 0x74_6D70_00B0);
        assert!(lba48.supports_48bit());
    }

    #[test]
    fn sector_sizes() {
        assert_eq!(with(&[]).logical_sector_bytes(), 512);
        let e4k = with(&[(106, 0x6003)]);
        assert_eq!(e4k.logical_sector_bytes(), 512);
        assert_eq!(e4k.physical_sector_bytes(), 4096);
        let n4k = with(&[(106, 0x5000), (117, 2048)]);
        assert_eq!(n4k.logical_sector_bytes(), 4096);
    }

    #[test]
    fn checksum() {
        let mut w = [0u16; 256];
        w[0] = 0x0040;
        w[255] = 0x00A5;
        let sum = 0x40u8.wrapping_add(0xA5);
        w[255] |= u16::from(0u8.wrapping_sub(sum)) << 8;
        let id = Identify::from_words(w);
        assert_eq!(id.byte_sum(), 0);
        assert_eq!(id.checksum_valid(), Some(true));
        w[1] = 1;
        assert_eq!(Identify::from_words(w).checksum_valid(), Some(false));
        assert_eq!(with(&[]).checksum_valid(), None);
    }

    #[test]
    fn device_classes() {
        assert_eq!(with(&[(0, 0x0040)]).device_class(), DeviceClass::Ata);
        assert_eq!(with(&[(0, 0x848A)]).device_class(), DeviceClass::Cfa);
        assert_eq!(
            with(&[(0, 0x85C0)]).device_class(),
            DeviceClass::Atapi { device_type: 5 }
        );
        assert_eq!(with(&[(0, 0xC000)]).device_class(), DeviceClass::Unknown);
        assert_eq!(with(&[(83, 0x4004)]).device_class(), DeviceClass::Cfa);
    }

    #[test]
    fn apm_support_tests_differ_between_b_and_i() {
        // Word 83 bit 3 set but the word not marked valid: -B and -I say unsupported, -i not.
        let id = with(&[(83, 0x0008), (86, 0x0008), (91, 0x40FE)]);
        assert_eq!(id.apm(), Apm::NotSupported);
        assert_eq!(
            id.apm_unchecked(),
            Apm::Enabled {
                level: 254,
                level_valid: true
            }
        );
        let valid = with(&[(83, 0x4008), (86, 0x0000), (91, 0x40FE)]);
        assert_eq!(valid.apm(), Apm::Disabled);
    }

    #[test]
    fn hdparm_quirks_of_the_gets() {
        // -m's fallback needs word 59's high byte to be exactly 0x01.
        assert_eq!(with(&[(59, 0x0110)]).multcount_fallback(), 16);
        assert_eq!(with(&[(59, 0x1110)]).multcount_fallback(), 0);
        assert_eq!(with(&[(59, 0x1110)]).current_multiple_sectors(), Some(16));
        // -R prints word 120 & 2, not the mode.
        let wrv = with(&[(119, 0x4002), (120, 0x4003)]);
        assert_eq!(wrv.write_read_verify_shown(), Some(2));
        assert_eq!(with(&[(120, 0x4002)]).write_read_verify_shown(), None);
        // FLUSH CACHE EXT needs bits 15:13 = 011.
        assert!(with(&[(83, 0x7400)]).flush_cache_ext_supported());
        assert!(!with(&[(83, 0xF400)]).flush_cache_ext_supported());
        assert!(!with(&[(83, 0x4400)]).flush_cache_ext_supported());
        assert_eq!(
            with(&[(83, 0x4200), (94, 0x80FE)]).acoustic_level(),
            Some(254)
        );
        assert_eq!(with(&[(83, 0x4000), (94, 0x80FE)]).acoustic_level(), None);
    }

    #[test]
    fn with_multcount_sets_or_clears_word_59s_valid_bit() {
        let id = with(&[(59, 0x0110)]);
        assert_eq!(
            id.with_multcount(Some(8)).current_multiple_sectors(),
            Some(8)
        );
        assert_eq!(
            id.with_multcount(Some(0)).current_multiple_sectors(),
            Some(0)
        );
        let none = id.with_multcount(None);
        assert_eq!(none.current_multiple_sectors(), None);
        assert_eq!(none.current_multiple_sectors_raw(), 16);
    }

    #[test]
    fn wwn_and_security() {
        let id = with(&[
            (84, 0x0100),
            (108, 0x5001),
            (109, 0x4ee2),
            (110, 0x0b4c),
            (111, 0x8a3f),
            (128, 0x0129),
        ]);
        assert_eq!(id.wwn(), Some(0x5001_4ee2_0b4c_8a3f));
        let s = id.security_status();
        assert!(s.supported && s.frozen && s.enhanced_erase_supported && s.level_maximum);
        assert!(!s.enabled && !s.locked);
    }

    #[test]
    fn supported_sizes_unit_guess() {
        // Words (a value is half the current size): all doubled, wrapping.
        assert_eq!(
            supported_logical_sector_bytes(&[256, 2048, 0x8000_0001], 512),
            vec![512, 4096, 2]
        );
        assert_eq!(
            supported_logical_sector_bytes(&[512, 256], 512),
            vec![1024, 512]
        );
        // Bytes (a value is the current size, none is half of it): as they are.
        assert_eq!(
            supported_logical_sector_bytes(&[512, 1024], 512),
            vec![512, 1024]
        );
        assert_eq!(
            supported_logical_sector_bytes(&[256, 4096], 4096),
            vec![256, 4096]
        );
        // Neither: words.
        assert_eq!(supported_logical_sector_bytes(&[1024], 512), vec![2048]);
        assert_eq!(supported_logical_sector_bytes(&[], 512), Vec::<u32>::new());
        // A 0-byte logical sector: 0 equals it, so it is no hint of words.
        assert_eq!(supported_logical_sector_bytes(&[0, 256], 0), vec![0, 256]);
        assert_eq!(
            supported_logical_sector_bytes(&[0x8000_0000, 256], 0),
            vec![0, 512]
        );
        assert_eq!(
            supported_logical_sector_bytes(&[0, 0x8000_0000, 3], 0),
            vec![0, 0, 6]
        );
    }

    #[test]
    fn log_pages() {
        let mut p = [0u8; 512];
        p[0] = 0x80;
        p[4..8].copy_from_slice(&256u32.to_le_bytes());
        p[16] = 0x80;
        p[20..24].copy_from_slice(&2048u32.to_le_bytes());
        p[32] = 0x00;
        p[36..40].copy_from_slice(&9u32.to_le_bytes());
        p[48] = 0x80;
        p[52..56].copy_from_slice(&0x8000_0001u32.to_le_bytes());
        p[128] = 0x80; // past the eight descriptors hdparm reads
        assert_eq!(sector_config_sizes(&p), vec![256, 2048, 0x8000_0001]);
        let mut s = [0u8; 512];
        assert_eq!(sata_settings_devslp(&s), None);
        s[0x37] = 0x80;
        s[0x30] = 0xE5;
        s[0x31] = 7;
        assert_eq!(
            sata_settings_devslp(&s),
            Some(DevSleepTimings {
                deto_ms: 7,
                mdat_ms: 5
            })
        );
    }
}
