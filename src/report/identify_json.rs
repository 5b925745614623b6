//! JSON for the identify reports: the per-device object of `-I` / `--Istdin` and of `-i`.
//!
//! Owns: turning [`IdentifyReport`] and [`KernelIdentityReport`] into `serde_json::Value`s,
//! and the documentation of their fields (below). The envelope around them (format version,
//! program version, arguments, devices, messages, exit status) belongs to `exec`.
//!
//! Must not: decide anything. Both values are serializations of the same reports the text is
//! rendered from, so every value the text shows is here too. Conventions: snake_case keys;
//! units in key names (`_bytes`, `_sectors`, `_ns`, `_ms`, `_us`, `_kbytes` = 1024 bytes,
//! `_mebibytes` = 2^20 bytes, `_mbytes` = 10^6 bytes, `_gbytes` = 10^9 bytes); a key is absent
//! when hdparm prints nothing for it (or prints "unknown"); enums are objects with a `kind`.
//! Strings from the drive are given with trailing spaces removed (invalid UTF-8 replaced).
//! Their JSON Schema is `$defs/identify` and `$defs/kernel_identity` of
//! `doc/hdparm-rs.schema.json`, derived from the report types (`report::schema`): a key added to
//! a type is in the schema once it is regenerated (a test fails while the copy is stale).
//!
//! # `-I` object ([`identify_value`])
//!
//! | key | type | text it stands for |
//! |---|---|---|
//! | `device.kind` | `ata` \| `atapi` \| `cfa` \| `unknown` | first line; `unknown` = "Unknown device type" (exit 22, nothing else present) |
//! | `device.general_configuration` | int | word 0 |
//! | `device.atapi_device_type`, `device.atapi_device_type_name` | int, string | "ATAPI (name)" |
//! | `device.removable_media` | bool | "with (non-)removable media" (absent for CFA) |
//! | `specific_configuration.{word,powers_up_in_standby,response_incomplete}` | int, bool, bool | word 2 lines |
//! | `model`, `serial`, `firmware`, `media_serial`, `media_manufacturer` | string | "Model Number:" ... |
//! | `transport.{major,kind,description,revision}` | int, `parallel`\|`serial`\|`other`, string, string | "Transport:" |
//! | `standards.kind` | `ata` \| `cdrom` | "Standards:" |
//! | `standards.{minor_version_code,used,supported,likely_used,some_of}` | int, string, int[], int, int | "Used:", "Supported:", "Likely used:", "& some of" |
//! | `standards.{used_sff_8020i,supported_atapi,likely_atapi_1}` | bool, int[], bool | CD-ROM variant |
//! | `configuration.ata1_flags` | string[] | ATA-1 word 0 lines |
//! | `configuration.atapi.{drq_response,packet_size}` | string | "DRQ response:", "Packet size:" |
//! | `configuration.addressing.chs.{cylinders,heads,sectors_per_track}_{max,current}` | int | CHS table (absent: "CHS addressing not supported") |
//! | `configuration.addressing.chs.{bytes_per_track,bytes_per_sector,current_addressable_sectors}` | int | ATA-1 line, "CHS current addressable sectors" |
//! | `configuration.addressing.{lba28_sectors,lba48_sectors}` | int | "LBA    user addressable sectors", "LBA48 ..." |
//! | `configuration.addressing.sector_size.{reported,logical_bytes,physical_bytes}` | bool, int, int | "Logical/Physical Sector size" or the two lines |
//! | `configuration.addressing.sector_size.supported_logical_bytes` | int[] | `[ Supported: ... ]` (live devices) |
//! | `configuration.addressing.sector_size.sector0_offset_bytes` | int | "Logical Sector-0 offset" |
//! | `configuration.addressing.device_size_{bytes,mebibytes,mbytes,gbytes}` | int | "device size with M = 1024*1024 / 1000*1000", "(N GB)" |
//! | `configuration.{cache_buffer_kbytes,cache_buffer_type}` | int, string | "cache/buffer size" (absent: unknown) |
//! | `configuration.form_factor.{code,text}` | int, string | "Form Factor:" |
//! | `configuration.rotation` | `{kind:solid_state}` \| `{kind:rpm,rpm}` | "Nominal Media Rotation Rate:" |
//! | `capabilities.{cmd_queuing,cmd_overlap,lba}` | bool | first capabilities line |
//! | `capabilities.iordy.{supported,can_be_disabled}` | bool | "IORDY(may be)(can be disabled)" (absent: "IORDY not likely") |
//! | `capabilities.{buffer_type,buffer_size_bytes,rw_long_bytes,queue_depth}` | int | "Buffer type", "Buffer size", "bytes avail on r/w long", "Queue depth" |
//! | `capabilities.double_word_io` | bool | ATA-1 "Can(not) perform double-word IO" |
//! | `capabilities.standby_timer.{standard_values,device_specific_minimum}` | bool | "Standby timer values:" |
//! | `capabilities.multiple_sector_transfer` | `{kind:not_supported}` \| `{kind:supported,max_sectors,current_sectors}` | "R/W multiple sector transfer" |
//! | `capabilities.advanced_power_management` | `{kind:disabled}` \| `{kind:level,level}` | "Advanced power management level" |
//! | `capabilities.acoustic_management.{recommended,current}` | int | "Recommended acoustic management value" |
//! | `capabilities.{atapi_sw_reset_required,dmadir_required}`, `capabilities.overlap.{release_bus_us,clear_bsy_us}` | bool, int | ATAPI lines |
//! | `capabilities.dma.modes` | `{kind:not_supported}` \| `{kind:legacy,sdma}` \| `{kind:list,modes,questionable}` (modes: array of {name,selected}) | "DMA:" (`questionable` = "(?)") |
//! | `capabilities.dma.{interleaved,cycle_min_ns,cycle_recommended_ns}` | bool, int, int | "Interleaved DMA support", "Cycle time:" |
//! | `capabilities.pio.{modes,cycle_no_flow_control_ns,cycle_iordy_flow_control_ns}` | int[], int, int | "PIO:" (absent modes: unknown), "Cycle time:" |
//! | `commands_features` | array of {`word`, `features`: array of {`bit`,`name`,`enabled`}, `tlc_completion_timer_msec`} | "Commands/features:" table, one group per IDENTIFY word |
//! | `additional_features.features` | array of {`bit`,`name`,`enabled`} | word 69 lines |
//! | `additional_features.trim.{limit_blocks,deterministic_read}` | int, `zeros`\|`data` | "Data Set Management TRIM supported", "Deterministic read ..." |
//! | `cfa.{max_io_udma_cycle_ns,max_mem_udma_cycle_ns,advanced_modes,power_level_1,cprm}` | ... | CompactFlash lines |
//! | `removable_media_status_notification` | bool | "Removable Media Status Notification feature set supported" |
//! | `security.master_password_revision` | int | "Master password revision code" |
//! | `security.status.{supported,enabled,locked,frozen,count_expired,enhanced_erase_supported}` | bool | the six "(not)" lines |
//! | `security.status.level` | `high` \| `maximum` | "Security level" |
//! | `security.{erase_time,enhanced_erase_time}.{minutes,more_than}` | int, bool | "Nmin for (ENHANCED )SECURITY ERASE UNIT." |
//! | `wwn.{wwn,naa,ieee_oui,unique_id}` | hex string, int, int, int | "Logical Unit WWN Device Identifier" block |
//! | `hw_reset.{cblid_above_vih,device_number,determined_by}` | bool, int, `jumper`\|`csel` | "HW reset results:" |
//! | `device_sleep.{exit_timeout_ms,exit_timeout_source,min_assertion_ms,min_assertion_source}` | int, `drive`\|`default` | "Device Sleep:" (live devices) |
//! | `integrity.{signature_present,byte_sum,word,checksum_correct}` | bool, int, int, bool | "Checksum: (in)correct" / "Integrity word not set" |
//!
//! # `-i` object ([`kernel_identity_value`])
//!
//! | key | type | text it stands for |
//! |---|---|---|
//! | `model`, `firmware`, `serial` | string | "Model=", "FwRev=", "SerialNo=" |
//! | `config` | string[] | "Config={ ... }" |
//! | `raw_cylinders`, `raw_heads`, `raw_sectors`, `track_size`, `sector_size`, `ecc_bytes` | int | "RawCHS=", "TrkSize=", "SectSize=", "ECCbytes=" |
//! | `buffer_type`, `buffer_size_kbytes` | string, int | "BuffType=", "BuffSize=" (absent: unknown) |
//! | `max_mult_sect`, `mult_sect` | int, `{kind:invalid,value}` \| `{kind:off}` \| `{kind:on,value}` | "MaxMultSect=", "MultSect=" |
//! | `current_chs_uncertain` | bool | " (maybe):" |
//! | `current_cylinders`, `current_heads`, `current_sectors`, `current_capacity_sectors` | int | "CurCHS=", "CurSects=" |
//! | `lba`, `lba_sectors` | bool, int | "LBA=", "LBAsects=" |
//! | `iordy`, `pio_cycle_ns`, `dma_cycle_ns` | `on/off`\|`yes`\|`no`, two ints (min, iordy), two ints (min, rec) | "IORDY=", "tPIO=", "tDMA=" |
//! | `pio_modes` | string[] | "PIO modes:" |
//! | `dma_modes`, `udma_modes` | array of {`name`, `selected`, `supported` (present, false, only for a selected mode the drive does not list: the text's lone `*`)} | "DMA modes:", "UDMA modes:" (`selected` = the text's `*`) |
//! | `advanced_pm`, `advanced_pm_level` | bool, `{kind:disabled}` \| `{kind:unknown}` \| `{kind:level,level}` | "AdvancedPM=" |
//! | `write_cache_enabled` | bool | "WriteCache=" |
//! | `conforms_to.{minor,ata_versions}` | string, int[] | "Drive conforms to:" |

use serde_json::Value;

use super::identify::IdentifyReport;
use super::kernel_identity::KernelIdentityReport;

/// The `-I` per-device object (see the module doc for its keys).
pub fn identify_value(report: &IdentifyReport) -> Value {
    // Serializing these plain structs cannot fail (no maps with non-string keys, no custom
    // errors); Null would only show a bug, never a panic.
    serde_json::to_value(report).unwrap_or(Value::Null)
}

/// The `-i` per-device object (see the module doc for its keys).
pub fn kernel_identity_value(report: &KernelIdentityReport) -> Value {
    serde_json::to_value(report).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ata::identify::Identify;
    use crate::report::identify::{identify_report, IdentifyContext};

    fn drive() -> Identify {
        let mut w = [0u16; 256];
        w[0] = 0x0040;
        w[27] = 0x5744; // "WD"
        w[28] = 0x4320; // "C "
        w[29] = 0x2020;
        w[49] = 0x0300;
        w[53] = 0x0006;
        w[60] = 0x1000;
        w[80] = 0x01F0;
        w[82] = 0x0021;
        w[83] = 0x4400;
        w[85] = 0x0020;
        w[86] = 0x0400;
        w[88] = 0x207F;
        w[100] = 0x1000;
        w[106] = 0x6003;
        w[217] = 1;
        Identify::from_words(w)
    }

    #[test]
    fn identify_json_carries_what_the_text_shows() {
        let ctx = IdentifyContext {
            live: true,
            sector_config_sizes: Some(vec![256, 2048]),
            devslp: None,
        };
        let v = identify_value(&identify_report(&drive(), &ctx));
        assert_eq!(v["device"]["kind"], "ata");
        assert_eq!(v["model"], "WDC");
        assert_eq!(v["configuration"]["addressing"]["lba48_sectors"], 4096);
        assert_eq!(
            v["configuration"]["addressing"]["sector_size"]["physical_bytes"],
            4096
        );
        assert_eq!(
            v["configuration"]["addressing"]["sector_size"]["supported_logical_bytes"][1],
            4096
        );
        assert_eq!(v["configuration"]["rotation"]["kind"], "solid_state");
        let udma = &v["capabilities"]["dma"]["modes"]["modes"];
        assert_eq!(udma[5]["name"], "udma5");
        assert_eq!(udma[5]["selected"], true);
        let features = &v["commands_features"][0]["features"];
        assert_eq!(features[1]["name"], "Write cache");
        assert_eq!(features[1]["enabled"], true);
        // Nothing prints "Checksum" for this ATA-8 drive without an integrity word: the
        // integrity object says so.
        assert_eq!(v["integrity"]["signature_present"], false);
    }

    #[test]
    fn unknown_device_is_only_its_kind() {
        let mut w = [0u16; 256];
        w[0] = 0xC000;
        let v = identify_value(&identify_report(
            &Identify::from_words(w),
            &IdentifyContext::default(),
        ));
        assert_eq!(v["device"]["kind"], "unknown");
        assert!(v.get("standards").is_none());
    }

    #[test]
    fn kernel_identity_json() {
        let mut raw = [0u8; 512];
        raw[54..58].copy_from_slice(b"ABCD");
        raw[98] = 0x00; // word 49
        raw[99] = 0x02; // LBA
        let r = crate::report::kernel_identity::kernel_identity_report(&raw, Some(8));
        let v = kernel_identity_value(&r);
        assert_eq!(v["model"], "ABCD");
        assert_eq!(v["lba"], true);
        assert_eq!(v["pio_modes"][0], "pio0");
    }
}
