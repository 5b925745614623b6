//! The shell: the only code that opens files or calls the kernel. Block ioctls, the legacy HDIO
//! ioctls, ATA commands over SG_IO, and knowing what kind of device a node is.
//! All `unsafe` is in [`sys`].

pub mod reader;
pub mod sys;
pub mod files;
