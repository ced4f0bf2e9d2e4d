//! What several test files share: a scratch folder of their own.

use std::path::PathBuf;

/// A scratch folder below the system's temp folder, named after the test
/// file, the process and `name`, empty when made and removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// The folder `dsh-<file>-<pid>-<name>`, made empty.
    pub fn new(file: &str, name: &str) -> Scratch {
        let path = std::env::temp_dir().join(format!("dsh-{file}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create scratch folder");
        Scratch(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
