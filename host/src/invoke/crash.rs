//! How a guest that crashed explained itself: the last Python exception, JavaScript
//! error or Rust panic its toolchain printed on stderr.

/// How a guest that trapped explained itself on stderr, as a reason: a Python
/// exception, a JavaScript error or a Rust panic, each in the form its toolchain prints.
pub(crate) fn crash_reason(stderr: &str) -> Option<String> {
    python_exception(stderr)
        .map(|e| format!("it raised an uncaught exception: {e}"))
        .or_else(|| javascript_error(stderr).map(|e| format!("it threw an uncaught error: {e}")))
        .or_else(|| rust_panic(stderr).map(|e| format!("it panicked: {e}")))
}

/// `Traceback (most recent call last):` … `ValueError: message` (componentize-py).
fn python_exception(stderr: &str) -> Option<String> {
    let start = stderr.rfind("Traceback (most recent call last):")?;
    let mut lines = stderr[start..].lines().skip(1);
    let exception = lines.find(|line| !line.starts_with(char::is_whitespace))?;
    Some(exception.trim().to_string()).filter(|e| !e.is_empty())
}

/// `message`, then `Stack:` and indented frames (componentize-js / StarlingMonkey).
fn javascript_error(stderr: &str) -> Option<String> {
    let end = stderr.rfind("Stack:\n")?;
    let before = stderr[..end].trim_end();
    let paragraph = before.rsplit("\n\n").next()?.trim();
    (!paragraph.is_empty()).then(|| paragraph.to_string())
}

/// `thread '…' panicked at src/lib.rs:1:2:\n<message>\nnote: …` (Rust).
fn rust_panic(stderr: &str) -> Option<String> {
    let start = stderr.rfind("panicked at ")?;
    let after = &stderr[start..];
    let (_, rest) = after.split_once(":\n")?;
    let message: Vec<&str> = rest.lines().take_while(|line| !line.starts_with("note: ")).collect();
    let message = message.join("\n").trim().to_string();
    (!message.is_empty()).then_some(message)
}

#[cfg(test)]
mod tests {
    use super::crash_reason;

    #[test]
    fn a_rust_panic_message_is_read_from_stderr() {
        let stderr = "thread '<unnamed>' panicked at src/lib.rs:12:9:\nthe disk is on fire\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        assert_eq!(crash_reason(stderr).as_deref(), Some("it panicked: the disk is on fire"));
        assert_eq!(crash_reason("just some output"), None);
    }

    #[test]
    fn a_python_exception_wins_over_the_runtime_panic_that_follows_it() {
        let stderr = "Traceback (most recent call last):\n  File \"/0/app.py\", line 55, in ratio\nZeroDivisionError: float division by zero\n\nthread '<unnamed>' (1) panicked at runtime/src/lib.rs:1293:29:\nPython function threw an unexpected exception\nnote: run with `RUST_BACKTRACE=1`\n";
        assert_eq!(
            crash_reason(stderr).as_deref(),
            Some("it raised an uncaught exception: ZeroDivisionError: float division by zero")
        );
    }

    #[test]
    fn a_javascript_error_is_the_text_before_its_stack() {
        let stderr =
            "malformed URI sequence\nStack:\n  decode@urls.js:54:10\n\nRedirecting call to abort() to mozalloc_abort\n";
        assert_eq!(crash_reason(stderr).as_deref(), Some("it threw an uncaught error: malformed URI sequence"));
    }
}
