//! Our modes beside hdparm's per-device order of steps: each takes a whole invocation of its
//! own (`--apply`/`--check`, `--advise`, `--surface`, `--experiment`, `--prometheus`, the file
//! helpers `--fibmap`/`--fallocate`) and drives the devices through the same steps, device
//! access and output as a command line would ([`words`] runs our own words in-process for
//! the modes that need a setting read or set).

pub mod advise;
pub mod apply;
pub mod experiment;
pub mod filemap;
pub mod prometheus;
pub mod surface;
pub mod words;
