//! The test doubles of the executor: the scripted device ([`fake`]), the VM bench's drive
//! model behind it ([`fake_drive`]) and the scripted NVMe controller ([`fake_nvme`]). Compiled
//! for the library's own tests, and for tests/ and fuzz/ with the `doubles` feature; not part
//! of the product.

pub mod fake;
pub mod fake_drive;
pub mod fake_nvme;
