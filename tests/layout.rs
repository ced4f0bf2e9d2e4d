//! The crate's layout as the guide asks for it (issue #24, point 7; issue
//! #58): data flows one way, so no file of `src/` imports one that imports
//! it back, directly or through others (read from the code's paths, `use`
//! lines and groups included); `src/main.rs` is only the command line
//! (argument parsing and exit codes), each command's body living in the
//! harness; and the harness is rooms, not programs: no function of it over
//! 120 lines, no type name defined twice in it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The modules of `src/protocol/` each module there names, read from the
/// `super::…` and `crate::protocol::…` paths of its code (tests included: a
/// test module's imports are the module's too; comments and doc links not).
fn protocol_imports() -> BTreeMap<String, BTreeSet<String>> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/protocol");
    let mut modules = BTreeSet::new();
    for entry in std::fs::read_dir(&folder).expect("src/protocol exists") {
        let path = entry.expect("readable").path();
        if path.extension().is_some_and(|ext| ext == "rs") {
            modules.insert(path.file_stem().unwrap().to_string_lossy().into_owned());
        }
    }
    modules.remove("mod");
    let mut graph = BTreeMap::new();
    for module in &modules {
        // Code only: a doc link names a module without depending on it.
        let text: String = std::fs::read_to_string(folder.join(format!("{module}.rs")))
            .expect("readable")
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .map(|line| format!("{line}\n"))
            .collect();
        let mut imports = BTreeSet::new();
        for other in &modules {
            let named = [
                format!("super::{other}"),
                format!("crate::protocol::{other}"),
                format!("super::{{{other}"),
            ];
            let named_in_group = text.lines().any(|line| {
                line.trim_start().starts_with("use super::{")
                    && line.contains(&format!("{other}::"))
            });
            if other != module
                && (named.iter().any(|name| text.contains(name.as_str())) || named_in_group)
            {
                imports.insert(other.clone());
            }
        }
        graph.insert(module.clone(), imports);
    }
    graph
}

/// The modules `start` reaches by following imports.
fn reachable(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<&str> = graph[start].iter().map(String::as_str).collect();
    while let Some(module) = stack.pop() {
        if seen.insert(module.to_owned()) {
            stack.extend(graph[module].iter().map(String::as_str));
        }
    }
    seen
}

#[test]
fn protocol_modules_import_one_way() {
    let graph = protocol_imports();
    // The reading itself is checked: the known edges are found.
    assert!(graph["server"].contains("dispatch"), "{graph:?}");
    assert!(graph["kit"].contains("input_types"), "{graph:?}");
    assert!(graph["kit"].contains("wire"), "{graph:?}");
    for module in graph.keys() {
        assert!(
            !reachable(&graph, module).contains(module),
            "src/protocol/{module}.rs imports a module that imports it back: {graph:?}"
        );
    }
}

#[test]
fn main_is_only_the_command_line() {
    let main = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/main.rs"))
        .expect("src/main.rs");
    let lines = main.lines().count();
    assert!(lines < 300, "src/main.rs has {lines} lines");
}

/// A file of `src/` (the library crate; `src/main.rs` is the binary's) as
/// a module path: `src/harness/runner/probes.rs` and
/// `src/harness/runner/probes/mod.rs` are both `harness::runner::probes`.
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts
        .last()
        .is_some_and(|last| last == "mod" || last == "lib")
    {
        parts.pop();
    }
    parts
}

/// Every `.rs` file below `folder`, recursively.
fn rust_files(folder: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(folder).expect("readable folder") {
        let path = entry.expect("readable").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// A file's code: without its `#[cfg(test)] mod tests` (a test module's
/// `use super::*` names the file itself) and without comment lines (a doc
/// link names a module without depending on it).
fn code_of(text: &str) -> String {
    let mut end = text.len();
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(test)]") {
        let start = from + at;
        if text[start + "#[cfg(test)]".len()..]
            .trim_start()
            .starts_with("mod tests")
        {
            end = start;
            break;
        }
        from = start + 1;
    }
    text[..end]
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .map(|line| format!("{line}\n"))
        .collect()
}

fn is_ident(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// The identifier at the start of `text`, after white space.
fn ident_at(text: &str) -> Option<&str> {
    let text = text.trim_start();
    let end = text
        .bytes()
        .position(|b| !is_ident(b))
        .unwrap_or(text.len());
    (end > 0).then(|| &text[..end])
}

/// The paths a file's code names from `root::` on (`crate`, `super`,
/// `self`), each as its segments after the root; a group (`super::{a,
/// b::c}`) gives one path per item.
fn paths_from(code: &str, root: &str) -> Vec<Vec<String>> {
    let needle = format!("{root}::");
    let mut paths = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find(&needle) {
        let start = from + at;
        from = start + needle.len();
        let before = code[..start].bytes().last();
        if before.is_some_and(|b| is_ident(b) || b == b':') {
            continue;
        }
        let mut segments = Vec::new();
        let mut rest = &code[from..];
        loop {
            if let Some(group) = rest.strip_prefix('{') {
                let close = group.find('}').unwrap_or(group.len());
                for item in group[..close].split(',') {
                    let item: Vec<String> = item
                        .split("::")
                        .map_while(|part| ident_at(part).map(str::to_owned))
                        .collect();
                    paths.push(segments.iter().cloned().chain(item).collect());
                }
                break;
            }
            let Some(name) = ident_at(rest) else {
                paths.push(segments);
                break;
            };
            segments.push(name.to_owned());
            rest = &rest.trim_start()[name.len()..];
            match rest.strip_prefix("::") {
                Some(after) => rest = after,
                None => {
                    paths.push(segments);
                    break;
                }
            }
        }
    }
    paths
}

/// The file import graph of `src/`: for each module, the other modules its
/// code names (through `crate::`, `super::`, `self::` paths, and a folder
/// module's `child::` paths), each resolved to the longest module prefix.
fn src_imports() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.retain(|file| file.file_name().is_some_and(|name| name != "main.rs"));
    let modules: BTreeMap<Vec<String>, std::path::PathBuf> = files
        .iter()
        .map(|file| {
            (
                module_of(file.strip_prefix(&src).expect("below src")),
                file.clone(),
            )
        })
        .collect();
    let mut graph = BTreeMap::new();
    for (module, file) in &modules {
        let folder = file
            .file_name()
            .is_some_and(|name| name == "mod.rs" || name == "lib.rs");
        let code = code_of(&std::fs::read_to_string(file).expect("readable"));
        let parent: Vec<String> = module[..module.len().saturating_sub(1)].to_vec();
        let mut named: Vec<Vec<String>> = Vec::new();
        for (root, base) in [
            ("crate", Vec::new()),
            ("super", parent),
            ("self", module.clone()),
        ] {
            for path in paths_from(&code, root) {
                let mut base = base.clone();
                let mut rest = path.as_slice();
                while rest.first().is_some_and(|first| first == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                named.push(base.into_iter().chain(rest.iter().cloned()).collect());
            }
        }
        if folder {
            for child in modules
                .keys()
                .filter(|other| other.len() == module.len() + 1 && other.starts_with(module))
            {
                let name = format!("{}::", child[child.len() - 1]);
                let uses_child = code.match_indices(&name).any(|(at, _)| {
                    !code[..at]
                        .bytes()
                        .last()
                        .is_some_and(|b| is_ident(b) || b == b':')
                });
                if uses_child {
                    named.push(child.clone());
                }
            }
        }
        let mut imports = BTreeSet::new();
        for path in named {
            let resolved = (0..=path.len())
                .rev()
                .map(|length| path[..length].to_vec())
                .find(|prefix| modules.contains_key(prefix));
            if let Some(target) = resolved.filter(|target| target != module) {
                imports.insert(target);
            }
        }
        graph.insert(module.clone(), imports);
    }
    graph
}

/// Issue #58: no file of `src/` imports one that imports it back, directly
/// or through others: data flows one way, lower rooms never reach up.
#[test]
fn no_file_of_src_imports_one_that_imports_it_back() {
    let graph = src_imports();
    let name = |module: &Vec<String>| module.join("::");
    // The reading itself is checked: known edges are found, through a
    // plain path, a group and a folder module's child path.
    let module = |path: &str| path.split("::").map(str::to_owned).collect::<Vec<_>>();
    assert!(graph[&module("harness::runner")].contains(&module("harness::runner::adapter")));
    assert!(graph[&module("protocol::kit")].contains(&module("protocol::input_types")));
    assert!(graph[&module("harness::commands::conformance")].contains(&module("harness::runner")));
    let mut circles = Vec::new();
    for (start, imports) in &graph {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&Vec<String>> = imports.iter().collect();
        while let Some(next) = stack.pop() {
            if seen.insert(next.clone()) {
                stack.extend(graph.get(next).into_iter().flatten());
            }
        }
        if seen.contains(start) {
            circles.push(name(start));
        }
    }
    assert!(
        circles.is_empty(),
        "files that import one that imports them back: {circles:?}"
    );
}

/// Every function of `src/harness/` (outside test modules) with its length
/// in lines, from its `fn` line to its closing brace.
fn harness_functions() -> Vec<(usize, String)> {
    let harness = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/harness");
    let mut files = Vec::new();
    rust_files(&harness, &mut files);
    let mut functions = Vec::new();
    for file in files {
        let code = code_of(&std::fs::read_to_string(&file).expect("readable"));
        let lines: Vec<&str> = code.lines().collect();
        for (index, line) in lines.iter().enumerate() {
            let trimmed = line.trim_start();
            let signature = [
                "fn ",
                "pub fn ",
                "pub(crate) fn ",
                "pub(super) fn ",
                "const fn ",
            ]
            .iter()
            .any(|start| trimmed.starts_with(start));
            if !signature {
                continue;
            }
            let indent = line.len() - trimmed.len();
            let Some(open) = (index..lines.len()).find(|&at| {
                let line = lines[at].trim_end();
                line.ends_with('{') || line.ends_with(';')
            }) else {
                continue;
            };
            if lines[open].trim_end().ends_with(';') {
                continue;
            }
            let close = (open + 1..lines.len())
                .find(|&at| {
                    let line = lines[at];
                    line.len() - line.trim_start().len() == indent
                        && line.trim_start().starts_with('}')
                })
                .unwrap_or(lines.len());
            functions.push((
                close - index + 1,
                format!("{}:{}", file.display(), index + 1),
            ));
        }
    }
    functions
}

/// Issue #58: no function of the harness is a whole program.
#[test]
fn no_harness_function_is_over_120_lines() {
    let functions = harness_functions();
    assert!(functions.len() > 500, "the reading finds the functions");
    let long: Vec<&(usize, String)> = functions
        .iter()
        .filter(|(length, _)| *length > 120)
        .collect();
    assert!(long.is_empty(), "functions over 120 lines: {long:?}");
}

/// Issue #58: no type name is defined twice in the harness, so that a name
/// says which room it belongs to.
#[test]
fn no_type_name_is_defined_twice_in_the_harness() {
    let harness = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/harness");
    let mut files = Vec::new();
    rust_files(&harness, &mut files);
    let mut defined: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in files {
        let code = code_of(&std::fs::read_to_string(&file).expect("readable"));
        for line in code.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            let kind = words
                .iter()
                .position(|word| matches!(*word, "struct" | "enum" | "trait" | "type"));
            let Some(kind) = kind else { continue };
            let visibility_only = words[..kind].iter().all(|word| word.starts_with("pub"));
            if !visibility_only {
                continue;
            }
            if let Some(name) = words.get(kind + 1).and_then(|word| ident_at(word)) {
                defined
                    .entry(name.to_owned())
                    .or_default()
                    .push(file.display().to_string());
            }
        }
    }
    assert!(defined.len() > 50, "the reading finds the types");
    let twice: Vec<(&String, &Vec<String>)> = defined
        .iter()
        .filter(|(_, files)| files.len() > 1)
        .collect();
    assert!(twice.is_empty(), "type names defined twice: {twice:?}");
}
