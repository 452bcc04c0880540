//! The library's shape, checked from its sources against ARCHITECTURE.md's table of
//! stages (read from it, the one copy): every stage folder depends only on the
//! stages the table puts before it, no two sibling modules depend on each
//! other (directly or round a loop), and code inside the crate names what it uses by
//! its stage's path, not by the crate root's re-exports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::common;

/// The stages in dependency order, each with the stages it may use, as
/// ARCHITECTURE.md's table ("Dependencies run one way") lists them: a row may name
/// several stages (`tool`, `mutex`, `sys`), and "nothing" for none.
fn stages() -> Vec<(String, Vec<String>)> {
    let path = common::root().join("ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path).expect("ARCHITECTURE.md is readable");
    let table = text.split_once("| stage | may use |").expect("ARCHITECTURE.md has the table of stages").1;
    let names = |cell: &str| -> Vec<String> {
        cell.split(',').map(|name| name.trim().trim_matches('`').to_string()).filter(|name| name != "nothing").collect()
    };
    let mut stages = Vec::new();
    for row in table.lines().skip(1).map(str::trim).take_while(|line| line.starts_with('|')) {
        let cells: Vec<&str> = row.trim_matches('|').split('|').collect();
        let [stage_cell, uses_cell] = cells[..] else { panic!("a row of the table of stages is not two cells: {row}") };
        if stage_cell.trim().starts_with("---") {
            continue;
        }
        let uses = names(uses_cell);
        stages.extend(names(stage_cell).into_iter().map(|stage| (stage, uses.clone())));
    }
    assert!(stages.len() > 10, "found only {} stages in the table of {}", stages.len(), path.display());
    stages
}

/// A module of the library: its path from the crate root (`["load", "cache"]`).
type ModulePath = Vec<String>;

#[test]
fn the_stage_table_runs_one_way() {
    let stages = stages();
    for (position, (stage, uses)) in stages.iter().enumerate() {
        for used in uses {
            let before = stages[..position].iter().any(|(earlier, _)| earlier == used);
            assert!(before, "stage '{stage}' may use '{used}', which is not listed before it");
        }
    }
}

#[test]
fn every_stage_depends_only_on_the_stages_before_it() {
    let modules = library_modules();
    let allowed: BTreeMap<String, Vec<String>> = stages().into_iter().collect();
    let mut wrong = Vec::new();
    for (module, file) in &modules {
        let Some(stage) = module.first() else { continue };
        let Some(uses) = allowed.get(stage) else {
            wrong.push(format!("{}: stage '{stage}' is not in the table of stages", file.display()));
            continue;
        };
        for target in references(module, file, &modules) {
            match target.first() {
                None => wrong.push(format!("{}: uses a crate-root re-export; name the stage's path", file.display())),
                Some(used) if used != stage && !uses.contains(used) => {
                    wrong.push(format!("{}: '{stage}' uses '{}', which it may not", file.display(), target.join("::")))
                }
                Some(_) => {}
            }
        }
    }
    assert!(wrong.is_empty(), "dependencies against ARCHITECTURE.md:\n{}", wrong.join("\n"));
}

#[test]
fn no_modules_depend_on_each_other_round_a_loop() {
    let modules = library_modules();
    // Edges between modules neither of which contains the other: a parent that
    // re-exports its children's items, and children that use the parent's, is a
    // folder's ordinary shape, not a loop.
    let mut edges: BTreeMap<ModulePath, BTreeSet<ModulePath>> = BTreeMap::new();
    for (module, file) in &modules {
        for target in references(module, file, &modules) {
            if !target.starts_with(module) && !module.starts_with(&target) {
                edges.entry(module.clone()).or_default().insert(target);
            }
        }
    }
    for start in edges.keys() {
        if let Some(cycle) = path_back_to(start, start, &edges, &mut BTreeSet::new()) {
            let names: Vec<String> = std::iter::once(start).chain(&cycle).map(|m| m.join("::")).collect();
            panic!("modules depend on each other in a loop: {}", names.join(" -> "));
        }
    }
}

/// A path of modules from `from` back to `goal`, if there is one.
fn path_back_to(
    goal: &ModulePath,
    from: &ModulePath,
    edges: &BTreeMap<ModulePath, BTreeSet<ModulePath>>,
    seen: &mut BTreeSet<ModulePath>,
) -> Option<Vec<ModulePath>> {
    for next in edges.get(from).into_iter().flatten() {
        if next == goal {
            return Some(vec![next.clone()]);
        }
        if seen.insert(next.clone())
            && let Some(mut rest) = path_back_to(goal, next, edges, seen)
        {
            rest.insert(0, next.clone());
            return Some(rest);
        }
    }
    None
}

/// Every module file of the library, by module path.
fn library_modules() -> BTreeMap<ModulePath, PathBuf> {
    let src = common::root().join("host/src");
    let mut modules = BTreeMap::new();
    collect_modules(&src, &src, &mut modules);
    assert!(modules.len() > 20, "found only {} modules under {}", modules.len(), src.display());
    modules
}

fn collect_modules(src: &Path, dir: &Path, modules: &mut BTreeMap<ModulePath, PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the library's sources are readable") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            collect_modules(src, &path, modules);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path.strip_prefix(src).expect("under src").with_extension("");
        let mut module: ModulePath = relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
        if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
            module.pop();
        }
        modules.insert(module, path);
    }
}

/// The modules a file's code (not its comments, not its `mod tests`) refers to
/// through `crate::` and `super::` paths.
fn references(module: &ModulePath, file: &Path, modules: &BTreeMap<ModulePath, PathBuf>) -> BTreeSet<ModulePath> {
    let text = std::fs::read_to_string(file).expect("a source file");
    // The tests module (`#[cfg(test)]` or `#[cfg(all(test, …))]`) ends a file, by convention.
    let code = match text.find("\nmod tests {") {
        Some(end) if text[..end].rsplit('\n').next().is_some_and(|attribute| attribute.starts_with("#[cfg(")) => {
            &text[..end]
        }
        _ => &text[..],
    };
    let code: String = code.lines().filter(|line| !line.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    let mut found = BTreeSet::new();
    for (start, _) in code.match_indices("crate::").chain(code.match_indices("super::")) {
        if code[..start].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        for path in expand_path(&code[start..]) {
            let (mut base, mut rest) = match path.split_first() {
                Some((head, rest)) if head == "crate" => (Vec::new(), rest),
                Some((_, rest)) => (module[..module.len().saturating_sub(1)].to_vec(), rest),
                None => continue,
            };
            while let Some(after) = rest.strip_prefix(&["super".to_string()][..]) {
                base.pop();
                rest = after;
            }
            found.insert(deepest_module(base, rest, modules));
        }
    }
    found.remove(module);
    found
}

/// The module a path names: the longest prefix of it that is a module.
fn deepest_module(mut base: ModulePath, rest: &[String], modules: &BTreeMap<ModulePath, PathBuf>) -> ModulePath {
    for segment in rest {
        base.push(segment.clone());
        if !modules.contains_key(&base) {
            base.pop();
            break;
        }
    }
    base
}

/// The paths a `crate::…` or `super::…` text starts: `crate::a::{b, c::d}` is
/// `crate::a::b` and `crate::a::c::d`; `super::super::x` keeps its `super`s.
fn expand_path(text: &str) -> Vec<Vec<String>> {
    let mut segments = Vec::new();
    let mut rest = text;
    loop {
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        segments.push(rest[..end].to_string());
        rest = &rest[end..];
        let Some(after) = rest.strip_prefix("::") else { return vec![segments] };
        rest = after;
        if rest.starts_with('{') {
            return group_members(rest).into_iter().map(|member| [segments.clone(), member].concat()).collect();
        }
    }
}

/// The first segments of each member of a `{…}` use group (members' own groups kept
/// only to their first segment, which is enough to name a module).
fn group_members(text: &str) -> Vec<Vec<String>> {
    let mut members = Vec::new();
    let mut depth = 0;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => break,
            '}' => depth -= 1,
            ',' if depth == 1 => members.push(std::mem::take(&mut current)),
            _ if depth >= 1 => current.push(c),
            _ => {}
        }
    }
    members.push(current);
    members
        .iter()
        .filter_map(|member| {
            let path: Vec<String> = member
                .trim()
                .split("::")
                .map(|s| s.trim().trim_start_matches('{').trim().to_string())
                .take_while(|s| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_'))
                .collect();
            (!path.is_empty() && path[0] != "self").then_some(path)
        })
        .collect()
}
