//! Sets the linker up for a Node.js addon (symbols resolved when Node loads it).

fn main() {
    napi_build::setup();
}
