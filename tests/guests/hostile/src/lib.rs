//! Test-only guest whose tools misbehave on purpose: traps, endless loops, memory hogs.

#![allow(
    missing_docs,
    reason = "the bindings toolhost_guest::generate! writes have no doc comments: a tool's docs are its WIT's"
)]

toolhost_guest::generate!({ world: "hostile", generate_all });

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

    fn log_lines(count: u32, error: bool) -> u32 {
        let write = if error { toolhost_guest::log::error } else { toolhost_guest::log::debug };
        for line in 0..count {
            write(&format!("line {line}"));
        }
        count
    }

    fn add_images(count: u32, size: u32) -> u32 {
        let image = vec![0; size as usize];
        for _ in 0..count {
            toolhost_guest::content::image(&image, "image/png");
        }
        count
    }

    fn ask_many(count: u32) -> u32 {
        let schema = r#"{"type": "object", "properties": {"ok": {"type": "boolean"}}}"#;
        let answered = (0..count).map(|i| toolhost_guest::elicit::ask(&format!("question {i}"), schema));
        answered.filter(|answer| matches!(answer, toolhost_guest::elicit::Answer::Accept(_))).count() as u32
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

    fn allocate_huge(bytes: u64) -> u64 {
        let block = vec![7u8; bytes as usize];
        std::hint::black_box(&block);
        block.len() as u64
    }

    fn shout(megabytes: u32) -> u32 {
        use std::io::Write;
        let chunk = vec![b'!'; 1 << 20];
        for _ in 0..megabytes {
            std::io::stdout().write_all(&chunk).expect("stdout takes the chunk");
            std::io::stderr().write_all(&chunk).expect("stderr takes the chunk");
        }
        megabytes
    }

    fn big_list(count: u32) -> Vec<u32> {
        (0..count).collect()
    }

    fn connect(address: String) -> Result<(), String> {
        std::net::TcpStream::connect(&address).map(drop).map_err(|e| format!("connect {address}: {e}"))
    }

    fn resolve(host: String) -> Result<Vec<String>, String> {
        use std::net::ToSocketAddrs;
        (host.as_str(), 80)
            .to_socket_addrs()
            .map(|addresses| addresses.map(|a| a.ip().to_string()).collect())
            .map_err(|e| format!("resolve {host}: {e}"))
    }

    fn sleep(ms: u64) -> u64 {
        std::thread::sleep(std::time::Duration::from_millis(ms));
        ms
    }

    fn work(steps: u32, pause_ms: u64, ask: bool) -> u32 {
        for step in 1..=steps {
            std::thread::sleep(std::time::Duration::from_millis(pause_ms));
            toolhost_guest::progress::report(f64::from(step), Some(f64::from(steps)), Some(&format!("step {step}")));
        }
        let schema = r#"{"type": "object", "properties": {"ok": {"type": "boolean"}}}"#;
        let more = ask
            && matches!(toolhost_guest::elicit::ask("One more?", schema), toolhost_guest::elicit::Answer::Accept(_));
        steps + u32::from(more)
    }

    fn http_get(url: String) -> Result<String, String> {
        http::get(&url)
    }

    fn count_calls() -> u32 {
        static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
    }

    fn big_string(length: u32) -> String {
        "x".repeat(length as usize)
    }

    fn use_secret(name: String) -> Result<String, String> {
        let value = std::env::var(&name).map_err(|_| format!("{name} is not set"))?;
        println!("using {value}");
        eprintln!("using {value}");
        toolhost_guest::log::error(&format!("the service refused {value}"));
        Err(format!("the service refused the key {value}"))
    }

    fn config_secret(name: String) -> Result<String, String> {
        use crate::wasi::config::store::{self, Error};
        let message = |error: Error| match error {
            Error::Upstream(message) | Error::Io(message) => message,
        };
        let value = store::get(&name).map_err(message)?.ok_or_else(|| format!("{name} is not set"))?;
        let names: Vec<String> = store::get_all().map_err(message)?.into_iter().map(|(name, _)| name).collect();
        Ok(format!("{} characters; all: {}", value.len(), names.join(",")))
    }
}

export!(Hostile);

/// A GET request with the `wasi` crate's `wasi:http` bindings.
mod http {
    use wasi::http::outgoing_handler;
    use wasi::http::types::{Fields, OutgoingRequest, Scheme};
    use wasi::io::streams::StreamError;

    pub(crate) fn get(url: &str) -> Result<String, String> {
        let (scheme, rest) = url.split_once("://").ok_or_else(|| format!("'{url}' has no scheme"))?;
        let (authority, path) = rest.find('/').map_or((rest, "/"), |i| rest.split_at(i));
        let request = OutgoingRequest::new(Fields::new());
        let scheme = if scheme == "https" { Scheme::Https } else { Scheme::Http };
        request.set_scheme(Some(&scheme)).map_err(|()| "bad scheme".to_string())?;
        request.set_authority(Some(authority)).map_err(|()| format!("bad authority '{authority}'"))?;
        request.set_path_with_query(Some(path)).map_err(|()| format!("bad path '{path}'"))?;
        let pending = outgoing_handler::handle(request, None).map_err(|e| format!("request failed: {e:?}"))?;
        let response = loop {
            match pending.get() {
                Some(result) => break result,
                None => pending.subscribe().block(),
            }
        };
        let response = response
            .map_err(|()| "response already taken".to_string())?
            .map_err(|e| format!("request failed: {e:?}"))?;
        let body = response.consume().map_err(|()| "no body".to_string())?;
        let stream = body.stream().map_err(|()| "no body stream".to_string())?;
        let mut bytes = Vec::new();
        loop {
            match stream.blocking_read(64 * 1024) {
                Ok(chunk) => bytes.extend(chunk),
                Err(StreamError::Closed) => break,
                Err(StreamError::LastOperationFailed(e)) => {
                    return Err(format!("reading the body failed: {}", e.to_debug_string()));
                }
            }
        }
        Ok(format!("{} {}", response.status(), String::from_utf8_lossy(&bytes)))
    }
}
