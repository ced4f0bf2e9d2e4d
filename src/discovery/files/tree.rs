//! The protocol's `tree` input: a working directory described as entries,
//! materialized in a fresh temporary directory that is removed afterwards
//! (spec `files.list.tree`). This is test machinery, not upstream behaviour;
//! `conformance/adapters/upstream-npm/files.mjs` does exactly the same.

use crate::js::json::Json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// What an entry of the tree is.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Planned {
    Directory,
    File,
    Symlink(String),
}

/// The checked tree: relative path → what to create there (parents implied
/// as directories).
#[derive(Debug, Default)]
pub struct TreePlan {
    entries: BTreeMap<String, Planned>,
}

fn declare(
    entries: &mut BTreeMap<String, Planned>,
    path: String,
    what: Planned,
) -> Result<(), String> {
    match entries.get(&path) {
        None => {
            entries.insert(path, what);
            Ok(())
        }
        Some(Planned::Directory) if what == Planned::Directory => Ok(()),
        Some(_) => Err(format!("files/list: {path:?} is declared twice")),
    }
}

/// A well-formed string without NUL, as Rust text.
fn name_text(value: Option<&Json>, what: &str) -> Result<String, String> {
    value
        .and_then(Json::as_string)
        .filter(|text| !text.contains('\0'))
        .ok_or_else(|| format!("files/list: {what} must be a well-formed string without NUL"))
}

impl TreePlan {
    /// Checks `{"entries": [{path, kind, target?}]}`: paths are relative,
    /// `/`-separated names (no empty, `.` or `..` segment); kinds are `file`,
    /// `directory` or `symlink` (with a non-empty relative `target`); a path
    /// is declared once (directories may repeat) and nothing lives under a
    /// file or symlink.
    pub fn from_json(tree: &Json) -> Result<TreePlan, String> {
        let items = tree
            .get("entries")
            .and_then(Json::as_array)
            .ok_or("files/list: tree.entries must be an array")?;
        let mut entries = BTreeMap::new();
        for item in items {
            let path = name_text(item.get("path"), "an entry path")?;
            let segments: Vec<&str> = path.split('/').collect();
            if segments
                .iter()
                .any(|segment| matches!(*segment, "" | "." | ".."))
            {
                return Err(format!(
                    "files/list: {path:?} is not a relative path of names"
                ));
            }
            let what = match item.get("kind").and_then(Json::as_string).as_deref() {
                Some("file") => Planned::File,
                Some("directory") => Planned::Directory,
                Some("symlink") => {
                    let target = name_text(item.get("target"), "a symlink target")?;
                    if target.is_empty() || target.starts_with('/') {
                        return Err(
                            "files/list: a symlink target must be a non-empty relative path"
                                .to_owned(),
                        );
                    }
                    Planned::Symlink(target)
                }
                _ => return Err("files/list: unknown entry kind".to_owned()),
            };
            for end in 1..segments.len() {
                declare(&mut entries, segments[..end].join("/"), Planned::Directory)?;
            }
            declare(&mut entries, path, what)?;
        }
        Ok(TreePlan { entries })
    }

    /// Creates the tree under `root`: directories, then empty files, then
    /// symlinks.
    fn materialize(&self, root: &Path) -> Result<(), String> {
        let fail = |path: &str, error: std::io::Error| {
            format!("files/list: cannot create {path:?}: {error}")
        };
        for (path, what) in &self.entries {
            if *what == Planned::Directory {
                std::fs::create_dir_all(root.join(path)).map_err(|e| fail(path, e))?;
            }
        }
        for (path, what) in &self.entries {
            if *what == Planned::File {
                std::fs::File::create_new(root.join(path)).map_err(|e| fail(path, e))?;
            }
        }
        for (path, what) in &self.entries {
            if let Planned::Symlink(target) = what {
                symlink(target, &root.join(path)).map_err(|e| fail(path, e))?;
            }
        }
        Ok(())
    }
}

#[cfg(unix)]
fn symlink(target: &str, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn symlink(_target: &str, _link: &Path) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "symlinks in a tree need a Unix host",
    ))
}

/// A fresh temporary directory, removed (with everything in it) on drop.
#[derive(Debug)]
pub struct TempTree {
    root: PathBuf,
}

impl TempTree {
    /// Creates a uniquely named directory under the system's temporary
    /// directory and materializes `plan` in it.
    pub fn create(plan: &TreePlan) -> Result<TempTree, String> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.subsec_nanos());
        for _ in 0..64 {
            let name = format!(
                "dsh-files-{}-{}-{nanos}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            );
            let root = base.join(name);
            match std::fs::create_dir(&root) {
                Ok(()) => {
                    let tree = TempTree { root };
                    plan.materialize(&tree.root)?;
                    return Ok(tree);
                }
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(error) => {
                    return Err(format!(
                        "files/list: cannot create a temporary directory: {error}"
                    ))
                }
            }
        }
        Err("files/list: no free temporary directory name".to_owned())
    }

    /// The working directory.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        // Best effort: a leftover empty tree is harmless.
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::json::parse;

    fn plan(text: &str) -> Result<TreePlan, String> {
        TreePlan::from_json(&parse(text).expect("json"))
    }

    #[test]
    fn rejects_what_the_protocol_does_not_allow() {
        assert!(plan(r#"{"entries":[{"path":"a/../b","kind":"file"}]}"#).is_err());
        assert!(plan(r#"{"entries":[{"path":"/a","kind":"file"}]}"#).is_err());
        assert!(
            plan(r#"{"entries":[{"path":"a","kind":"file"},{"path":"a/b","kind":"file"}]}"#)
                .is_err()
        );
        assert!(
            plan(r#"{"entries":[{"path":"a","kind":"file"},{"path":"a","kind":"file"}]}"#).is_err()
        );
        assert!(plan(r#"{"entries":[{"path":"l","kind":"symlink","target":"/etc"}]}"#).is_err());
        assert!(plan(r#"{"entries":[{"path":"\uD800","kind":"file"}]}"#).is_err());
        assert!(plan(r#"{"entries":[{"path":"a","kind":"fifo"}]}"#).is_err());
        assert!(plan(r#"{"entries":{}}"#).is_err());
        assert!(plan(
            r#"{"entries":[{"path":"a/b","kind":"file"},{"path":"a","kind":"directory"}]}"#
        )
        .is_ok());
    }

    #[test]
    fn creates_and_removes() {
        let plan = plan(
            r#"{"entries":[{"path":"src/a.ts","kind":"file"},{"path":"docs","kind":"directory"},{"path":"l","kind":"symlink","target":"src"}]}"#,
        )
        .expect("valid");
        let tree = TempTree::create(&plan).expect("created");
        let root = tree.root().to_path_buf();
        assert!(root.join("src/a.ts").is_file());
        assert!(root.join("docs").is_dir());
        #[cfg(unix)]
        assert!(std::fs::symlink_metadata(root.join("l"))
            .expect("exists")
            .file_type()
            .is_symlink());
        drop(tree);
        assert!(!root.exists());
    }
}
