//! Test-only guest that imports an interface no host provides.

toolhost_guest::generate!({ world: "needy" });

struct Needy;

impl Guest for Needy {
    fn reveal(name: String) -> String {
        test::needy::secrets::lookup(&name)
    }
}

export!(Needy);
