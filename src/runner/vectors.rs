//! Conformance vector files (spec `conformance.vector-format`).
//!
//! A file is `{"description": STRING, "vectors": [VECTOR…]}`; a vector is an
//! object with exactly the fields `id`, `rules`, `description`, `op`,
//! `features`, `input`, `expect`, and optionally `comment`. `expect` is
//! `{"output": ANY}` or `{"error": CODE}`. Unknown fields are errors.

use crate::js::json::{self, Json};
use crate::js::JsString;
use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

const VECTOR_FIELDS: &[&str] = &[
    "id",
    "rules",
    "description",
    "op",
    "features",
    "input",
    "expect",
    "comment",
];

/// What a vector expects from an implementation.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// This exact output (structural, member order and code units compared).
    Output(Json),
    /// A failure with this code.
    Error(String),
}

impl Expect {
    /// The `expect` member's JSON form.
    pub fn to_json(&self) -> Json {
        match self {
            Expect::Output(output) => Json::object([("output", output.clone())]),
            Expect::Error(code) => Json::object([("error", Json::str(code))]),
        }
    }
}

/// One conformance vector.
#[derive(Clone, Debug, PartialEq)]
pub struct Vector {
    /// Stable, unique, never reused: `area.op.what`.
    pub id: String,
    /// The spec rule ids it tests.
    pub rules: Vec<String>,
    /// One short line on what it shows.
    pub description: String,
    /// The protocol op.
    pub op: String,
    /// Runs on implementations that declare at least one of these.
    pub features: Vec<String>,
    /// The op's input, exactly as written.
    pub input: Json,
    /// The expected outcome.
    pub expect: Expect,
}

/// A vector file: its path, description and vectors, and its JSON tree so
/// it can be rewritten with nothing but `expect` fields changed.
#[derive(Clone, Debug)]
pub struct VectorFile {
    /// Where it was read from.
    pub path: PathBuf,
    /// What the file covers.
    pub description: String,
    /// Its vectors, in file order.
    pub vectors: Vec<Vector>,
    tree: Json,
}

/// A problem in a vector file, naming the file and the entry at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// The file.
    pub path: PathBuf,
    /// The vector's index (and id when it has one), if the problem is in one.
    pub entry: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(entry) = &self.entry {
            write!(f, ", {entry}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LoadError {}

/// All vector files under a directory.
#[derive(Clone, Debug)]
pub struct Suite {
    /// The files: the `wire` group first, then by path.
    pub files: Vec<VectorFile>,
}

impl Suite {
    /// Loads every `*.json` file below `dir`. Ids must be unique across the
    /// suite.
    pub fn load(dir: &Path) -> Result<Suite, LoadError> {
        let mut paths = Vec::new();
        collect_json_files(dir, &mut paths).map_err(|error| LoadError {
            path: dir.to_path_buf(),
            entry: None,
            message: error.to_string(),
        })?;
        // The wire group runs first: a broken JSON layer shows up as a few
        // clear transport failures before anything else (spec
        // `conformance.wire-first`).
        paths.sort_by_key(|path| {
            (
                !path.components().any(|c| c.as_os_str() == "wire"),
                path.clone(),
            )
        });
        let mut files = Vec::new();
        let mut seen = HashSet::new();
        for path in paths {
            let file = VectorFile::load(&path)?;
            for (index, vector) in file.vectors.iter().enumerate() {
                if !seen.insert(vector.id.clone()) {
                    return Err(LoadError {
                        path: path.clone(),
                        entry: Some(format!("vector {index} ({})", vector.id)),
                        message: "duplicate id".to_owned(),
                    });
                }
            }
            files.push(file);
        }
        Ok(Suite { files })
    }

    /// Every vector with the file it came from.
    pub fn vectors(&self) -> impl Iterator<Item = (&VectorFile, &Vector)> {
        self.files
            .iter()
            .flat_map(|file| file.vectors.iter().map(move |vector| (file, vector)))
    }
}

fn collect_json_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_json_files(&path, out)?;
        } else if path.extension().is_some_and(|ext| ext == "json") {
            out.push(path);
        }
    }
    Ok(())
}

impl VectorFile {
    /// Reads and checks one vector file.
    pub fn load(path: &Path) -> Result<VectorFile, LoadError> {
        let error = |entry: Option<String>, message: String| LoadError {
            path: path.to_path_buf(),
            entry,
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| error(None, e.to_string()))?;
        let tree = json::parse(&text).map_err(|e| error(None, format!("not JSON: {e}")))?;
        let members = tree
            .as_object()
            .ok_or_else(|| error(None, "a vector file is an object".to_owned()))?;
        if let Some((key, _)) = members
            .iter()
            .find(|(key, _)| !matches!(key.to_str().as_deref(), Some("description" | "vectors")))
        {
            return Err(error(None, format!("unknown field {key:?}")));
        }
        let description = tree
            .get("description")
            .and_then(Json::as_string)
            .ok_or_else(|| error(None, "missing string \"description\"".to_owned()))?;
        let entries = tree
            .get("vectors")
            .and_then(Json::as_array)
            .ok_or_else(|| error(None, "missing array \"vectors\"".to_owned()))?;
        let vectors = entries
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                Vector::from_json(entry).map_err(|message| {
                    let id = entry.get("id").and_then(Json::as_string);
                    let name = match id {
                        Some(id) => format!("vector {index} ({id})"),
                        None => format!("vector {index}"),
                    };
                    error(Some(name), message)
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(VectorFile {
            path: path.to_path_buf(),
            description,
            vectors,
            tree,
        })
    }

    /// A file holding `vectors`, for unit tests of the runner.
    #[cfg(test)]
    pub(crate) fn for_tests(vectors: Vec<Vector>) -> VectorFile {
        VectorFile {
            path: PathBuf::from("test.json"),
            description: String::new(),
            vectors,
            tree: Json::Null,
        }
    }

    /// The file's text with the `expect` of each vector named in `updates`
    /// replaced; everything else is kept as written.
    pub fn rewritten(&self, updates: &dyn Fn(&str) -> Option<Expect>) -> String {
        let mut tree = self.tree.clone();
        if let Json::Object(members) = &mut tree {
            for (key, value) in members.iter_mut() {
                if key.units() != JsString::from("vectors").units() {
                    continue;
                }
                if let Json::Array(entries) = value {
                    for entry in entries.iter_mut() {
                        let id = entry
                            .get("id")
                            .and_then(Json::as_string)
                            .unwrap_or_default();
                        if let (Some(expect), Json::Object(fields)) = (updates(&id), entry) {
                            set_member(fields, "expect", expect.to_json());
                        }
                    }
                }
            }
        }
        json::to_pretty(&tree, 3)
    }
}

fn set_member(fields: &mut Vec<(JsString, Json)>, name: &str, value: Json) {
    let key = JsString::from(name);
    match fields.iter_mut().find(|(field, _)| *field == key) {
        Some((_, slot)) => *slot = value,
        None => fields.push((key, value)),
    }
}

/// True for a stable vector id: dotted lowercase words, at least two.
pub fn is_valid_id(id: &str) -> bool {
    let parts: Vec<&str> = id.split('.').collect();
    parts.len() >= 2
        && parts.iter().all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}

fn string_list(entry: &Json, name: &str) -> Result<Vec<String>, String> {
    let items = entry
        .get(name)
        .and_then(Json::as_array)
        .ok_or(format!("\"{name}\" must be an array of strings"))?;
    let list: Vec<String> = items
        .iter()
        .map(|item| {
            item.as_string()
                .ok_or(format!("\"{name}\" must hold strings"))
        })
        .collect::<Result<_, _>>()?;
    if list.is_empty() {
        return Err(format!("\"{name}\" must not be empty"));
    }
    Ok(list)
}

impl Vector {
    fn from_json(entry: &Json) -> Result<Vector, String> {
        let fields = entry.as_object().ok_or("a vector is an object")?;
        let mut seen = HashSet::new();
        for (key, _) in fields {
            let name = key.to_str().unwrap_or_default();
            if !VECTOR_FIELDS.contains(&name.as_str()) {
                return Err(format!("unknown field {key:?}"));
            }
            if !seen.insert(name.clone()) {
                return Err(format!("field {key:?} written twice"));
            }
        }
        let text = |name: &str| {
            entry
                .get(name)
                .and_then(Json::as_string)
                .ok_or(format!("missing string \"{name}\""))
        };
        let id = text("id")?;
        if !is_valid_id(&id) {
            return Err(format!("id {id:?} is not dotted lowercase words"));
        }
        if let Some(comment) = entry.get("comment") {
            comment.as_string().ok_or("\"comment\" must be a string")?;
        }
        let input = entry
            .get("input")
            .filter(|input| input.as_object().is_some())
            .cloned()
            .ok_or("missing object \"input\"")?;
        let expect = entry.get("expect").ok_or("missing \"expect\"")?;
        let expect = match (
            expect.get("output"),
            expect.get("error"),
            expect.as_object().map(<[_]>::len),
        ) {
            (Some(output), None, Some(1)) => Expect::Output(output.clone()),
            (None, Some(Json::String(code)), Some(1)) => {
                Expect::Error(code.to_str().ok_or("error code must be text")?)
            }
            _ => return Err("\"expect\" must be {\"output\": ANY} or {\"error\": CODE}".to_owned()),
        };
        Ok(Vector {
            id,
            rules: string_list(entry, "rules")?,
            description: text("description")?,
            op: text("op")?,
            features: string_list(entry, "features")?,
            input,
            expect,
        })
    }
}
