//! Empty: it is here so that the package's `[build-dependencies]` count, which make
//! cargo resolve the build-time dependencies' features as the test build does, so the
//! fuzz build finds them compiled (Cargo.toml says more).

fn main() {}
