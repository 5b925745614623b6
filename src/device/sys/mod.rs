//! Every `unsafe` line of the crate: raw ioctls, SG_IO, mmap/mlock, io_uring submission.
//! Each block carries a `// SAFETY:` note; kernel structs are `#[repr(C)]` with size asserts.

#![allow(unsafe_code)]

pub mod mem;
pub mod uring;
