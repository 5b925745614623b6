//! (being written)
pub fn parse() {}
