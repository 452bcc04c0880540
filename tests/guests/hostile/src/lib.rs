//! Test-only guest whose tools misbehave on purpose: traps, endless loops, memory hogs.

toolhost_guest::generate!({ world: "hostile" });

struct Hostile;

impl Guest for Hostile {
    fn echo(text: String) -> String {
        text
    }

    fn panic_with(message: String) {
        panic!("{message}");
    }

    fn trap_silently() {
        std::process::abort();
    }

    fn spin_with_imports() {
        loop {
            std::hint::black_box(std::time::Instant::now());
        }
    }

    fn spin() -> u64 {
        let mut n: u64 = 0;
        loop {
            n = std::hint::black_box(n.wrapping_add(1));
            if n == u64::MAX {
                return n;
            }
        }
    }

    fn allocate_forever() -> u64 {
        let mut kept: Vec<Vec<u8>> = Vec::new();
        loop {
            kept.push(vec![1u8; 1 << 20]);
            std::hint::black_box(&kept);
        }
    }

    fn log_line(message: String) -> u32 {
        toolhost_guest::log::info(&message);
        message.len() as u32
    }

    fn env_var(name: String) -> Option<String> {
        std::env::var(name).ok()
    }

    fn read_path(path: String) -> Result<String, String> {
        std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))
    }

    fn write_path(path: String, contents: String) -> Result<(), String> {
        std::fs::write(&path, contents).map_err(|e| format!("{path}: {e}"))
    }

    #[allow(unconditional_recursion)]
    fn recurse(depth: u64) -> u64 {
        std::hint::black_box(Self::recurse(std::hint::black_box(depth + 1))) + 1
    }

    fn read_out_of_bounds() -> u8 {
        // SAFETY: none; trapping on this read is the point of the tool.
        unsafe { std::ptr::read_volatile(std::hint::black_box(0xFFFF_FFF0usize) as *const u8) }
    }

    fn fail_structured(code: u32) -> Result<String, Failure> {
        Err(Failure { code, reason: "the structured failure asked for".into() })
    }

    fn big_string(length: u32) -> String {
        "x".repeat(length as usize)
    }
}

export!(Hostile);
