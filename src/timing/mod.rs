//! Read timing (`-T`, `-t`) and the benchmark mode: measurement loops over an injected clock
//! and reader, statistics as pure functions, and the printed lines. Nothing here opens a device.
