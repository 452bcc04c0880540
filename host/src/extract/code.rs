//! Where a reply shows code rather than acting: Markdown fenced blocks (```` ``` ````
//! or `~~~`, to the closing fence or the end) and inline code spans (a run of
//! backticks to the next run of the same length). A tool call written there is an
//! example, never a call. One pass over the text.

use std::ops::Range;

/// The code regions of `text` from byte `from` on (a char boundary), as offsets
/// into `text`: what [`regions`] finds in the rest of a reply.
pub(super) fn regions_from(text: &str, from: usize) -> Vec<Range<usize>> {
    regions(&text[from..]).into_iter().map(|region| region.start + from..region.end + from).collect()
}

/// The code regions of `text`, in order, not overlapping.
pub(super) fn regions(text: &str) -> Vec<Range<usize>> {
    let mut regions = Vec::new();
    let mut fence: Option<(usize, u8, usize)> = None; // start, fence byte, fence length
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let end = line_start + line.len();
        let opened = fence_of(line);
        match (fence, opened) {
            (Some((start, byte, length)), Some((b, l))) if b == byte && l >= length && is_bare(line, l) => {
                regions.push(start..end);
                fence = None;
            }
            (Some(_), _) => {}
            (None, Some((byte, length))) => fence = Some((line_start, byte, length)),
            (None, None) => inline_spans(line, line_start, &mut regions),
        }
        line_start = end;
    }
    if let Some((start, _, _)) = fence {
        regions.push(start..text.len());
    }
    regions
}

/// A fence opening or closing `line`: up to three spaces, then three or more
/// backticks or tildes.
fn fence_of(line: &str) -> Option<(u8, usize)> {
    let indent = line.bytes().take_while(|&b| b == b' ').count();
    if indent > 3 {
        return None;
    }
    let rest = &line.as_bytes()[indent..];
    let byte = *rest.first().filter(|&&b| b == b'`' || b == b'~')?;
    let length = rest.iter().take_while(|&&b| b == byte).count();
    (length >= 3).then_some((byte, length))
}

/// Whether a closing fence line holds nothing after its fence.
fn is_bare(line: &str, length: usize) -> bool {
    line.trim_start().get(length..).is_some_and(|rest| rest.trim().is_empty())
}

/// The inline code spans of one line (outside fences): a run of backticks and the
/// next run of the same length on the line (found through a table of next runs, so
/// that a line of many unmatched runs stays linear).
fn inline_spans(line: &str, offset: usize, regions: &mut Vec<Range<usize>>) {
    let runs = backtick_runs(line.as_bytes());
    let mut next_same = vec![None; runs.len()];
    let mut last_of_length = std::collections::HashMap::new();
    for (i, &(_, length)) in runs.iter().enumerate().rev() {
        next_same[i] = last_of_length.insert(length, i);
    }
    let mut i = 0;
    while i < runs.len() {
        let (start, length) = runs[i];
        match next_same[i] {
            Some(close) => {
                regions.push(offset + start..offset + runs[close].0 + length);
                i = close + 1;
            }
            None => i += 1,
        }
    }
}

/// Each run of backticks in `bytes`: where it starts and how long it is.
fn backtick_runs(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let length = bytes[i..].iter().take_while(|&&b| b == b'`').count();
            runs.push((i, length));
            i += length;
        } else {
            i += 1;
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::regions;

    #[test]
    fn fences_and_inline_code_are_found() {
        let text = "say `x` then\n```json\n{\"a\": 1}\n```\nafter ``a ` b`` and ~~~\n~~~\nopen\n";
        let found: Vec<&str> = regions(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(found, ["`x`", "```json\n{\"a\": 1}\n```\n", "``a ` b``", "~~~\nopen\n"]);
        assert!(regions("a lone ` backtick").is_empty());
    }
}
