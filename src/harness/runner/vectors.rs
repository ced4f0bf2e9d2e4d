//! Conformance vector files (spec `conformance.vector-format`).
//!
//! A file is `{"description": STRING, "vectors": [VECTOR…]}`; a vector is an
//! object with exactly the fields `id`, `rules`, `description`, `op`,
//! `features`, `input`, `expect`, and optionally `requires` and `comment`.
//! `expect` is `{"output": ANY}` or `{"error": CODE}`. Unknown fields are
//! errors.

use super::cost::CostVector;
use crate::harness::embedded::VECTOR_FILES as EMBEDDED_VECTORS;
use crate::js::json::{self, Json};
use crate::js::JsString;
use crate::protocol::input_types;
use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

const VECTOR_FIELDS: &[&str] = &[
    "id",
    "rules",
    "description",
    "op",
    "features",
    "requires",
    "input",
    "expect",
    "sides",
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
    /// Capabilities an implementation must declare, all of them, for the
    /// vector to run (spec `protocol.capabilities`); usually empty.
    pub requires: Vec<String>,
    /// The op's input, exactly as written.
    pub input: Json,
    /// The expected outcome.
    pub expect: Expect,
    /// For rules that distinguish cases, which side of the rule's boundary
    /// this vector is on: `(rule id, side)`, in written order (optional
    /// member `sides`, spec `conformance.sides`).
    pub sides: Vec<(String, String)>,
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
    /// Its cost vectors, in file order (a file holds one kind).
    pub cost: Vec<CostVector>,
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

/// All vector files of a suite, and the suite's version.
#[derive(Clone, Debug)]
pub struct Suite {
    /// The files: the `wire` group first, then by path.
    pub files: Vec<VectorFile>,
    /// Which vectors these are (spec `runner.suite-version`).
    pub version: SuiteVersion,
}

/// Names a set of vectors so that two runs can tell whether they ran the
/// same suite: the crate that carries it, how many vectors it has, and a
/// SHA-256 over every file's path (relative to the vector folder) and bytes.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SuiteVersion {
    /// The version of this crate.
    #[serde(rename = "crateVersion")]
    pub crate_version: String,
    /// Vectors in the suite.
    pub vectors: usize,
    /// `sha256:` and the lowercase hex digest.
    pub hash: String,
    /// Where the vectors came from: `embedded`, or the folder given.
    pub source: String,
}

impl std::fmt::Display for SuiteVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "dsh-session-reference {} suite, {} vectors, {} ({})",
            self.crate_version,
            self.vectors,
            &self.hash[..self.hash.len().min(19)],
            self.source
        )
    }
}

/// Where the embedded vector files are shown to come from.
pub const EMBEDDED_ROOT: &str = "conformance/vectors";

impl Suite {
    /// The suite embedded in this binary at build time.
    pub fn embedded() -> Result<Suite, LoadError> {
        let sources = EMBEDDED_VECTORS
            .iter()
            .map(|(relative, text)| ((*relative).to_owned(), (*text).to_owned()))
            .collect();
        Suite::from_sources(Path::new(EMBEDDED_ROOT), sources, "embedded".to_owned())
    }

    /// Loads every `*.json` file below `dir`. Ids must be unique across the
    /// suite.
    pub fn load(dir: &Path) -> Result<Suite, LoadError> {
        let mut paths = Vec::new();
        collect_json_files(dir, &mut paths).map_err(|error| LoadError {
            path: dir.to_path_buf(),
            entry: None,
            message: error.to_string(),
        })?;
        let mut sources = Vec::new();
        for path in paths {
            let text = std::fs::read_to_string(&path).map_err(|error| LoadError {
                path: path.clone(),
                entry: None,
                message: error.to_string(),
            })?;
            sources.push((relative_name(&path, dir), text));
        }
        Suite::from_sources(dir, sources, dir.display().to_string())
    }

    /// A suite of the files `sources` (path below `root`, text).
    fn from_sources(
        root: &Path,
        mut sources: Vec<(String, String)>,
        source: String,
    ) -> Result<Suite, LoadError> {
        sources.sort();
        let hash = suite_hash(
            sources
                .iter()
                .map(|(relative, text)| (relative.as_str(), text.as_str())),
        );
        // The wire group runs first: a broken JSON layer shows up as a few
        // clear transport failures before anything else (spec
        // `conformance.wire-first`).
        sources.sort_by_key(|(relative, _)| {
            (
                !relative.split('/').any(|part| part == "wire"),
                relative.clone(),
            )
        });
        let mut files = Vec::new();
        let mut seen = HashSet::new();
        for (relative, text) in sources {
            let path = root.join(&relative);
            let file = VectorFile::parse(&path, &text)?;
            let ids = file
                .vectors
                .iter()
                .map(|vector| &vector.id)
                .chain(file.cost.iter().map(|vector| &vector.id));
            for (index, id) in ids.enumerate() {
                if !seen.insert(id.clone()) {
                    return Err(LoadError {
                        path: path.clone(),
                        entry: Some(format!("vector {index} ({id})")),
                        message: "duplicate id".to_owned(),
                    });
                }
            }
            files.push(file);
        }
        let version = SuiteVersion {
            crate_version: env!("CARGO_PKG_VERSION").to_owned(),
            // Ordinary vectors; cost vectors are counted apart.
            vectors: files
                .iter()
                .map(|file: &VectorFile| file.vectors.len())
                .sum(),
            hash,
            source,
        };
        Ok(Suite { files, version })
    }

    /// Every cost vector with the file it came from (spec `runner.cost`).
    pub fn cost_vectors(&self) -> impl Iterator<Item = (&VectorFile, &CostVector)> {
        self.files
            .iter()
            .flat_map(|file| file.cost.iter().map(move |vector| (file, vector)))
    }

    /// Every vector with the file it came from.
    pub fn vectors(&self) -> impl Iterator<Item = (&VectorFile, &Vector)> {
        self.files
            .iter()
            .flat_map(|file| file.vectors.iter().map(move |vector| (file, vector)))
    }

    /// A suite of one file holding `vectors`, for unit tests of the runner.
    #[cfg(test)]
    pub(crate) fn for_tests(vectors: Vec<Vector>) -> Suite {
        Suite {
            version: SuiteVersion {
                crate_version: String::new(),
                vectors: vectors.len(),
                hash: String::new(),
                source: "test".to_owned(),
            },
            files: vec![VectorFile {
                path: PathBuf::from("test.json"),
                description: String::new(),
                vectors,
                cost: Vec::new(),
                tree: Json::Null,
            }],
        }
    }

    /// The vector with this id.
    pub fn find(&self, id: &str) -> Option<(&VectorFile, &Vector)> {
        self.vectors().find(|(_, vector)| vector.id == id)
    }
}

// `suite_hash`, shared with build.rs, which computes the embedded suite's.
include!("suite_hash.rs");

/// The hash of the embedded suite, as [`SuiteVersion::hash`] names it,
/// without parsing a vector: what `--version` prints beside the crate's
/// version, so that two installed binaries show whether they carry the same
/// suite. Computed when the binary is built (build.rs): every command line
/// is parsed with `--version`'s text, so hashing here cost every start.
pub fn embedded_hash() -> &'static str {
    crate::harness::embedded::VECTORS_HASH
}

/// Writes the embedded vector files below `dir`, as they are in the source
/// tree (`uri/decode.json`, …), for implementations that read them without
/// this binary. Returns how many files were written.
pub fn export_embedded(dir: &Path) -> std::io::Result<usize> {
    for (relative, text) in EMBEDDED_VECTORS {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
    }
    Ok(EMBEDDED_VECTORS.len())
}

/// `path` below `dir`, with `/` separators.
fn relative_name(path: &Path, dir: &Path) -> String {
    path.strip_prefix(dir)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
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
    /// Checks one vector file's `text`, read from `path`.
    pub fn parse(path: &Path, text: &str) -> Result<VectorFile, LoadError> {
        let error = |entry: Option<String>, message: String| LoadError {
            path: path.to_path_buf(),
            entry,
            message,
        };
        let tree = json::parse(text).map_err(|e| error(None, format!("not JSON: {e}")))?;
        let members = tree
            .as_object()
            .ok_or_else(|| error(None, "a vector file is an object".to_owned()))?;
        if let Some((key, _)) = members.iter().find(|(key, _)| {
            !matches!(
                key.to_str().as_deref(),
                Some("description" | "vectors" | "cost")
            )
        }) {
            return Err(error(None, format!("unknown field {key:?}")));
        }
        let description = tree
            .get("description")
            .and_then(Json::as_string)
            .ok_or_else(|| error(None, "missing string \"description\"".to_owned()))?;
        // A file holds vectors, or cost vectors (spec `runner.cost`).
        let (entries, costs) = match (tree.get("vectors"), tree.get("cost")) {
            (Some(vectors), None) => (vectors, false),
            (None, Some(cost)) => (cost, true),
            _ => {
                return Err(error(
                    None,
                    "a vector file has an array \"vectors\" or an array \"cost\"".to_owned(),
                ))
            }
        };
        let entries = entries
            .as_array()
            .ok_or_else(|| error(None, "\"vectors\" and \"cost\" are arrays".to_owned()))?;
        // As the schema says (minItems 1): a file without vectors is a
        // mistake, and a suite of such files would pass any implementation.
        if entries.is_empty() {
            let member = if costs { "cost" } else { "vectors" };
            return Err(error(None, format!("\"{member}\" is empty")));
        }
        // Each entry read by `read`, a failure naming the entry.
        fn read_entries<T>(
            entries: &[Json],
            read: impl Fn(&Json) -> Result<T, String>,
            error: impl Fn(Option<String>, String) -> LoadError,
        ) -> Result<Vec<T>, LoadError> {
            entries
                .iter()
                .enumerate()
                .map(|(index, entry)| {
                    read(entry).map_err(|message| {
                        let name = match entry.get("id").and_then(Json::as_string) {
                            Some(id) => format!("vector {index} ({id})"),
                            None => format!("vector {index}"),
                        };
                        error(Some(name), message)
                    })
                })
                .collect()
        }
        let (vectors, cost) = if costs {
            (
                Vec::new(),
                read_entries(entries, CostVector::from_json, error)?,
            )
        } else {
            (read_entries(entries, Vector::from_json, error)?, Vec::new())
        };
        Ok(VectorFile {
            path: path.to_path_buf(),
            description,
            vectors,
            cost,
            tree,
        })
    }

    /// The file's text with the `expect` of each vector named in `updates`
    /// replaced, and every vector's `requires` set to what its input and
    /// expectation need ([`required_capabilities`]); everything else is kept
    /// as written.
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
                        let Json::Object(fields) = entry else {
                            continue;
                        };
                        if let Some(expect) = updates(&id) {
                            set_member(fields, "expect", expect.to_json());
                        }
                        let entry = Json::Object(fields.clone());
                        let requires = required_capabilities(
                            &entry
                                .get("op")
                                .and_then(Json::as_string)
                                .unwrap_or_default(),
                            entry.get("input").unwrap_or(&Json::Null),
                            entry.get("expect").unwrap_or(&Json::Null),
                        );
                        set_requires(fields, &requires);
                    }
                }
            }
        }
        json::to_pretty(&tree, 3)
    }
}

/// The capability a vector needs when its input or expected outcome holds a
/// lone surrogate (spec `protocol.capabilities`).
pub const LONE_SURROGATES: &str = "lone-surrogates";

/// The capability a vector needs when a snapshot of its input has no
/// `capturedThroughSeq` (spec `protocol.capabilities`,
/// `surface.seq-absent`).
pub const OPTIONAL_SEQ: &str = "optional-seq";

/// The capability a vector needs when a `models` entry of its input is a
/// failing lookup, `{"lookupError": …}` (spec `protocol.capabilities`,
/// `prepare.budget.lookup-failed`).
pub const MODEL_LOOKUP_ERRORS: &str = "model-lookup-errors";

/// The capability a vector needs when its `cancel` names a stage, an
/// object such as `{"onRead": 2}` (spec `protocol.capabilities`,
/// `prepare.cancel.stage`).
pub const STAGED_CANCEL: &str = "staged-cancel";

/// The capability a vector needs when it asks the pre-step to keep message
/// ids, `"keepIds": true` (spec `protocol.capabilities`, `pre-step.ids`).
pub const MESSAGE_IDS: &str = "message-ids";

/// The capabilities a vector of `op` with this input and expectation
/// requires: an implementation whose strings cannot hold a lone surrogate
/// can neither receive nor produce one (`lone-surrogates`); one that
/// types `capturedThroughSeq` as required cannot read a snapshot without
/// it (`optional-seq`); and an implementation that does not know the
/// protocol's later optional members would silently misread them
/// (`model-lookup-errors`, `staged-cancel`, `message-ids`); a typed port
/// cannot decode an input member of another JSON type than the protocol
/// declares (`dynamic-inputs`, spec `protocol.input-types`).
pub fn required_capabilities(op: &str, input: &Json, expect: &Json) -> Vec<String> {
    let mut needed = Vec::new();
    if input.has_lone_surrogate() || expect.has_lone_surrogate() {
        needed.push(LONE_SURROGATES.to_owned());
    }
    if snapshots(op, input).any(|snapshot| snapshot.get("capturedThroughSeq").is_none()) {
        needed.push(OPTIONAL_SEQ.to_owned());
    }
    let prepares = super::ops::prepares_messages(op);
    let failing_lookup = input
        .get("models")
        .and_then(Json::as_object)
        .is_some_and(|models| {
            models
                .iter()
                .any(|(_, entry)| entry.as_object().is_some() && entry.get("lookupError").is_some())
        });
    if prepares && failing_lookup {
        needed.push(MODEL_LOOKUP_ERRORS.to_owned());
    }
    if prepares && input.get("cancel").and_then(Json::as_object).is_some() {
        needed.push(STAGED_CANCEL.to_owned());
    }
    if op == "pre-step" && input.get("keepIds") == Some(&Json::Bool(true)) {
        needed.push(MESSAGE_IDS.to_owned());
    }
    if input_types::needs_dynamic_inputs(op, input) || holds_overflowing_number(input) {
        needed.push(input_types::DYNAMIC_INPUTS.to_owned());
    }
    needed
}

/// Whether `value` holds a number too large for a double (`1e999`, which
/// `JSON.parse` reads as Infinity): a typed port's decoder refuses it
/// (serde_json: "number out of range"), as it refuses an ill-typed member
/// (spec `protocol.capabilities`).
fn holds_overflowing_number(value: &Json) -> bool {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Json::Number(number) if !number.is_finite() => return true,
            Json::Array(items) => pending.extend(items),
            Json::Object(members) => pending.extend(members.iter().map(|(_, item)| item)),
            _ => {}
        }
    }
    false
}

/// The snapshots an input of `op` holds: `retain`'s `snapshot`, and every
/// entry of `prepare`'s and `pre-step`'s `sessions` that is not a read
/// failure (`{"readError": …}`).
fn snapshots<'a>(op: &str, input: &'a Json) -> Box<dyn Iterator<Item = &'a Json> + 'a> {
    match op {
        "retain" => Box::new(
            input
                .get("snapshot")
                .filter(|s| s.as_object().is_some())
                .into_iter(),
        ),
        "prepare" | "pre-step" => Box::new(
            input
                .get("sessions")
                .and_then(Json::as_object)
                .into_iter()
                .flatten()
                .map(|(_, entry)| entry)
                .filter(|entry| entry.as_object().is_some() && entry.get("readError").is_none()),
        ),
        _ => Box::new(std::iter::empty()),
    }
}

fn set_member(fields: &mut Vec<(JsString, Json)>, name: &str, value: Json) {
    let key = JsString::from(name);
    match fields.iter_mut().find(|(field, _)| *field == key) {
        Some((_, slot)) => *slot = value,
        None => fields.push((key, value)),
    }
}

/// Sets `requires` right after `features` (removes it when empty).
fn set_requires(fields: &mut Vec<(JsString, Json)>, requires: &[String]) {
    let key = JsString::from("requires");
    fields.retain(|(field, _)| *field != key);
    if requires.is_empty() {
        return;
    }
    let features = JsString::from("features");
    let at = fields
        .iter()
        .position(|(field, _)| *field == features)
        .map_or(fields.len(), |index| index + 1);
    let value = Json::Array(requires.iter().map(|c| Json::str(c)).collect());
    fields.insert(at, (key, value));
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
            requires: match entry.get("requires") {
                None => Vec::new(),
                Some(_) => string_list(entry, "requires")?,
            },
            input,
            expect,
            sides: sides(entry)?,
        })
    }
}

/// The optional `sides` member: an object from a cited rule id to the name
/// of the side of that rule's boundary the vector is on (spec
/// `conformance.sides`).
fn sides(entry: &Json) -> Result<Vec<(String, String)>, String> {
    let Some(value) = entry.get("sides") else {
        return Ok(Vec::new());
    };
    let members = value
        .as_object()
        .ok_or("\"sides\" must be an object from rule id to side")?;
    let rules = string_list(entry, "rules")?;
    let mut sides = Vec::new();
    for (rule, side) in members {
        let rule = rule.to_str().ok_or("\"sides\" keys must be rule ids")?;
        if !rules.contains(&rule) {
            return Err(format!(
                "\"sides\" names {rule:?}, which \"rules\" does not cite"
            ));
        }
        let side = side
            .as_string()
            .filter(|side| is_valid_side(side))
            .ok_or(format!("the side of {rule:?} must be a lowercase word"))?;
        if sides.iter().any(|(known, _)| *known == rule) {
            return Err(format!("\"sides\" names {rule:?} twice"));
        }
        sides.push((rule, side));
    }
    if sides.is_empty() {
        return Err("\"sides\" must not be empty".to_owned());
    }
    Ok(sides)
}

/// A side's name: lowercase letters, digits and `-`.
pub fn is_valid_side(side: &str) -> bool {
    !side.is_empty()
        && side
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vector file in canonical form whose input and expectation hold
    /// `numbers` (written as they are) in an array and in an object; it
    /// requires `dynamic-inputs`, as an input with `1e999` does.
    fn file_with(numbers: &str) -> String {
        format!(
            "{{\n  \"description\": \"numbers\",\n  \"vectors\": [\n    {{\n      \"id\": \"json.numbers.kept\",\n      \"rules\": [\"json.stringify.numbers\"],\n      \"description\": \"numbers are kept\",\n      \"op\": \"json/tag-safe\",\n      \"features\": [\"json\"],\n      \"requires\": [\"dynamic-inputs\"],\n      \"input\": {{\"value\":[{numbers},[{numbers}],{{\"a\":[{numbers}],\"b\":-0}}]}},\n      \"expect\": {{\"output\":[{numbers}]}}\n    }}\n  ]\n}}\n"
        )
    }

    /// Every double of `value`, by its bits, in document order.
    fn bits(value: &Json, out: &mut Vec<u64>) {
        match value {
            Json::Number(number) => out.push(number.to_bits()),
            Json::Array(items) => items.iter().for_each(|item| bits(item, out)),
            Json::Object(members) => members.iter().for_each(|(_, item)| bits(item, out)),
            _ => {}
        }
    }

    /// runner.suite-version: the hash build.rs computes is the one the
    /// runner computes over the same files, so `--version` names the suite
    /// a run reports.
    #[test]
    fn the_built_hash_is_the_suite_hash() {
        let mut sources: Vec<(&str, &str)> = EMBEDDED_VECTORS.to_vec();
        sources.sort_unstable();
        assert_eq!(embedded_hash(), suite_hash(sources.into_iter()));
    }

    /// runner.malformed-vectors: a `sides` member that is not an object of
    /// cited rules to side names is refused, naming the entry.
    #[test]
    fn malformed_sides_are_refused() {
        let entry = |sides: &str| {
            file_with("0").replace(
                "\"expect\": {\"output\":[0]}",
                &format!("\"expect\": {{\"output\":[0]}},\n      \"sides\": {sides}"),
            )
        };
        let parse = |text: &str| VectorFile::parse(Path::new("json/numbers.json"), text);
        let good = parse(&entry(r#"{"json.stringify.numbers": "zero"}"#)).expect("valid");
        assert_eq!(
            good.vectors[0].sides,
            [("json.stringify.numbers".to_owned(), "zero".to_owned())]
        );
        for bad in [
            r#"{"json.other": "zero"}"#,
            r#"{"json.stringify.numbers": "Zero"}"#,
            r#"{"json.stringify.numbers": 1}"#,
            r#"{}"#,
            r#"["zero"]"#,
        ] {
            let error = parse(&entry(bad)).expect_err(bad);
            assert_eq!(
                error.entry.as_deref(),
                Some("vector 0 (json.numbers.kept)"),
                "{bad}"
            );
        }
    }

    /// Vector files keep every number exactly (spec
    /// `conformance.vector-format`): read then written, a file in canonical
    /// form comes back byte for byte, -0 keeping its sign and every double
    /// in its shortest round-trip spelling.
    #[test]
    fn numbers_survive_read_and_write_byte_for_byte() {
        let numbers = "-0,0,1e+21,1e+308,5e-324,-5e-324,0.1,-0.1,2.2250738585072014e-308,\
                       1.7976931348623157e+308,9007199254740993,100000000000000000000,\
                       46982672554.440796,1e999,-1e999";
        // 9007199254740993 is no double: it reads as …992.
        let canonical = numbers.replace("9007199254740993", "9007199254740992");
        let text = file_with(&canonical);
        let file = VectorFile::parse(Path::new("json/numbers.json"), &text).expect("valid");
        assert_eq!(file.rewritten(&|_| None), text);
        let mut read = Vec::new();
        bits(&file.tree, &mut read);
        assert!(read.contains(&(-0.0f64).to_bits()), "-0 lost");
        assert_eq!(
            read.iter().filter(|b| **b == (-0.0f64).to_bits()).count(),
            5,
            "every -0 keeps its sign (four lists and one member)"
        );
        // Other spellings of the same doubles are written in the shortest
        // form, and keep every bit.
        let other = file_with(
            "-0.0,0.0,1E21,1e+308,4.9e-324,-4.9e-324,0.10,-1e-1,2.2250738585072014E-308,\
             1.7976931348623157e308,9007199254740993,1e20,46982672554.4407960,1e999,-1e999",
        );
        let file = VectorFile::parse(Path::new("json/numbers.json"), &other).expect("valid");
        let written = file.rewritten(&|_| None);
        assert_eq!(written, text);
        let again = VectorFile::parse(Path::new("json/numbers.json"), &written).expect("valid");
        let mut before = Vec::new();
        bits(&file.tree, &mut before);
        let mut after = Vec::new();
        bits(&again.tree, &mut after);
        assert_eq!(before, after);
    }
}
