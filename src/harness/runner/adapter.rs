//! Implementations under test: the built-in reference, or any program that
//! speaks the adapter protocol (spec `protocol.framing`).

use super::pace::{Pace, HUNG_OP_FACTOR};
use crate::features::{self, Declared, Features};
use crate::js::json::{self, Json};
use crate::js::JsString;
use crate::protocol::dispatch;
use crate::protocol::wire::{Outcome, Request, Response};
use std::fmt;
use std::io::{Read, Write};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How long a healthy implementation gets to exit once its stdin closes.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// The protocol version this runner speaks (spec `protocol.version`).
pub const PROTOCOL_VERSION: u8 = 1;

/// At most this much of what an implementation writes to stderr is kept
/// per vector; the rest is counted.
const STDERR_LIMIT: usize = 8 * 1024;

/// How much of an implementation's output is read at a time.
const READ_CHUNK: usize = 64 * 1024;

/// At most this many chunks of stderr are drained before an answer is
/// delivered, so that an implementation that never stops logging cannot
/// hold its answer back forever.
const DRAIN_CHUNKS: usize = 256;

/// The capabilities the reference declares, with any features.
pub fn reference_capabilities() -> Vec<String> {
    dispatch::CAPABILITIES
        .iter()
        .map(|c| (*c).to_owned())
        .collect()
}

/// What `describe` answered.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Description {
    /// The implementation's name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// The features it declares.
    pub features: Vec<String>,
    /// The release it declares itself to be, or is run as (`--release`):
    /// its behaviours replace those its features name (spec
    /// `runner.releases`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    /// The capabilities it declares (spec `protocol.capabilities`).
    pub capabilities: Vec<String>,
}

impl fmt::Display for Description {
    /// `name version (features: a, b)`, as reports introduce an
    /// implementation.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} ({}features: {}; capabilities: {})",
            self.name,
            self.version,
            self.release
                .as_ref()
                .map(|release| format!("release {release}; "))
                .unwrap_or_default(),
            self.features.join(", "),
            if self.capabilities.is_empty() {
                "none".to_owned()
            } else {
                self.capabilities.join(", ")
            }
        )
    }
}

impl Description {
    /// What it declares, read (spec `protocol.features`, `runner.releases`):
    /// the ops of its features (every op of its release when it names a
    /// release and no feature; of its features, those its release has) and
    /// the behaviours of its release, else of its features.
    pub fn declared(&self) -> Declared {
        let declared = Declared::from_names(self.features.iter().map(String::as_str));
        match self.release.as_deref().and_then(features::release) {
            Some(release) => declared.as_release(release),
            None => declared,
        }
    }

    /// Runs it as the release `name` (`--release`): its behaviours are the
    /// release's, its ops those it declares that the release has.
    pub fn as_release(mut self, name: &str) -> Result<Description, String> {
        let release = features::release(name).ok_or_else(|| unknown_release(name))?;
        self.release = Some(release.name.to_owned());
        Ok(self)
    }

    fn from_output(output: &Json) -> Result<Description, String> {
        let text = |name: &str| {
            output
                .get(name)
                .and_then(Json::as_string)
                .ok_or(format!("describe output has no string \"{name}\""))
        };
        let list = |name: &str, value: &Json| -> Result<Vec<String>, String> {
            value
                .as_array()
                .ok_or(format!("describe output has no array \"{name}\""))?
                .iter()
                .map(|item| item.as_string().ok_or(format!("{name} must be strings")))
                .collect()
        };
        // runner.releases: a release may stand in place of the features.
        let release = match output.get("release") {
            None => None,
            Some(Json::String(name)) => {
                let name = name.to_string_lossy();
                let release = features::release(&name).ok_or_else(|| unknown_release(&name))?;
                Some(release.name.to_owned())
            }
            Some(_) => return Err("describe output's \"release\" must be a string".to_owned()),
        };
        let features = match (output.get("features"), &release) {
            (None, Some(_)) => Vec::new(),
            (features, _) => list("features", features.unwrap_or(&Json::Null))?,
        };
        // protocol.capabilities: absent means none.
        let capabilities = match output.get("capabilities") {
            None => Vec::new(),
            Some(value) => list("capabilities", value)?,
        };
        // protocol.version: absent means version 1; another version is
        // not this runner's to test.
        match output.get("protocol") {
            None => {}
            Some(Json::Number(version)) if *version == f64::from(PROTOCOL_VERSION) => {}
            Some(other) => {
                return Err(format!(
                    "describe declares protocol {}, this runner speaks version {PROTOCOL_VERSION}",
                    json::to_wire(other)
                ))
            }
        }
        Ok(Description {
            name: text("name")?,
            version: text("version")?,
            features,
            release,
            capabilities,
        })
    }
}

/// The error for a release this runner does not know.
pub fn unknown_release(name: &str) -> String {
    let known: Vec<&str> = features::RELEASES
        .iter()
        .map(|release| release.name)
        .collect();
    format!("unknown release {name:?} (known: {})", known.join(", "))
}

/// An implementation the runner can drive.
pub trait Implementation {
    /// Asks for name, version and features.
    fn describe(&mut self) -> Result<Description, String>;
    /// Runs one op. `Err` is a protocol failure (crash, hang, garbage, wrong
    /// id), not a contract error: those are [`Outcome::Error`].
    fn call(&mut self, op: &str, input: &Json) -> Result<Outcome, String>;
    /// What the implementation wrote to stderr during the last call
    /// (bounded); empty for one that has no stderr.
    fn take_stderr(&mut self) -> String {
        String::new()
    }
    /// Whether the last call was answered after the timeout, within the
    /// grace period (spec `runner.slow`), and how late.
    fn take_slow(&mut self) -> Option<Slow> {
        None
    }
    /// Waits only the timeout from now on when `patient` is false (no
    /// grace period): for requests whose only question is whether they
    /// still hang, such as a hang's shrinking probes (spec `runner.slow`).
    fn set_patient(&mut self, patient: bool) {
        let _ = patient;
    }
}

/// An answer that came after the timeout, within the grace period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slow {
    /// How long the answer took.
    pub took: Duration,
    /// The timeout it exceeded.
    pub limit: Duration,
}

impl fmt::Display for Slow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "answered in {:.1} s (limit {} s)",
            self.took.as_secs_f64(),
            self.limit.as_secs_f64()
        )
    }
}

/// Whether a protocol failure is a hang: no answer within the timeout and
/// the grace period.
pub fn is_hang(problem: &str) -> bool {
    problem.starts_with(NO_ANSWER)
}

/// How a hang's protocol failure begins.
const NO_ANSWER: &str = "no answer within";

/// The grace period of a timeout (spec `runner.slow`): five times it, at
/// most [`MAX_GRACE`].
pub fn default_grace(timeout: Duration) -> Duration {
    (timeout * 5).min(MAX_GRACE)
}

/// The longest default grace period: an implementation that has not
/// answered ten minutes after its timeout is taken to hang.
pub const MAX_GRACE: Duration = Duration::from_secs(600);

/// The reference implementation with a set of behaviours, called in
/// process.
#[derive(Clone, Copy, Debug, Default)]
pub struct BuiltIn(pub Features);

impl Implementation for BuiltIn {
    fn describe(&mut self) -> Result<Description, String> {
        Description::from_output(&dispatch::describe(self.0))
    }

    fn call(&mut self, op: &str, input: &Json) -> Result<Outcome, String> {
        Ok(dispatch::handle_in(self.0, op, input))
    }
}

/// A program started with `sh -c COMMAND`, one request a line. After a
/// protocol failure the process is killed and started again on the next
/// call, so one bad answer costs one vector.
pub struct External {
    command: String,
    /// How long each op's answers are awaited (spec `runner.slow`).
    pace: Pace,
    /// Whether the grace period is waited at all ([`Implementation::set_patient`]).
    patient: bool,
    /// The last call's lateness, when it was answered within the grace.
    last_slow: Option<Slow>,
    running: Option<Running>,
    next_id: u64,
    /// What the implementation wrote to stderr for the last call (spec
    /// `runner.reports`).
    last_stderr: String,
    /// Whether the process inherits `RUST_BACKTRACE` and
    /// `RUST_LIB_BACKTRACE` (a backtrace on every crash costs time).
    backtraces: bool,
    /// Whether what the process writes to stderr is passed through to this
    /// process's stderr (it is kept for the report either way).
    pass_stderr: bool,
}

struct Running {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Set after a protocol failure: kill at once, no grace period.
    failed: bool,
    answers: Receiver<Answer>,
    stderr: StderrSink,
}

/// One line of the implementation's stdout (empty at the end of its output),
/// with what it wrote to stderr since the line before (spec
/// `runner.reports`).
struct Answer {
    line: std::io::Result<Vec<u8>>,
    stderr: String,
}

/// What an implementation wrote to stderr since the last answer: the first
/// [`STDERR_LIMIT`] bytes, and how many more there were.
#[derive(Default)]
struct StderrLog {
    kept: Vec<u8>,
    dropped: usize,
}

impl StderrLog {
    fn push(&mut self, chunk: &[u8]) {
        let room = STDERR_LIMIT
            .saturating_sub(self.kept.len())
            .min(chunk.len());
        self.kept.extend_from_slice(&chunk[..room]);
        self.dropped += chunk.len() - room;
    }

    fn take(&mut self) -> String {
        let mut text = String::from_utf8_lossy(&self.kept).into_owned();
        if self.dropped > 0 {
            text.push_str(&format!("\n… ({} more bytes)", self.dropped));
        }
        self.kept.clear();
        self.dropped = 0;
        text
    }
}

/// Where the reader puts what an implementation writes to stderr: kept per
/// answer for the report, and passed through to this process's stderr as an
/// inherited stream would be, unless quiet.
#[derive(Clone)]
struct StderrSink {
    log: Arc<Mutex<StderrLog>>,
    pass_through: bool,
}

impl StderrSink {
    fn push(&self, chunk: &[u8]) {
        if let Ok(mut log) = self.log.lock() {
            log.push(chunk);
        }
        if self.pass_through {
            let _ = std::io::stderr().write_all(chunk);
        }
    }

    fn take(&self) -> String {
        self.log
            .lock()
            .map(|mut log| log.take())
            .unwrap_or_default()
    }

    /// Reads `stderr` to its end (blocking), keeping what it says.
    fn pump_to_end(&self, mut stderr: ChildStderr) {
        let mut chunk = vec![0u8; READ_CHUNK];
        while let Ok(read @ 1..) = stderr.read(&mut chunk) {
            self.push(&chunk[..read]);
        }
    }
}

/// Cuts stdout's bytes into lines, each delivered as an [`Answer`] with the
/// stderr that `before_answer` gathers at that moment.
struct LineSplitter {
    pending: Vec<u8>,
    /// How much of `pending` is known to hold no newline.
    scanned: usize,
    answers: Sender<Answer>,
}

impl LineSplitter {
    fn new(answers: Sender<Answer>) -> LineSplitter {
        LineSplitter {
            pending: Vec::new(),
            scanned: 0,
            answers,
        }
    }

    /// Reads one chunk of `stdout` and delivers the lines it completes, or,
    /// at the end of the output (or a read error), what is left and the end.
    /// False once there is nothing more to read or nobody listens.
    fn read_from(
        &mut self,
        stdout: &mut ChildStdout,
        chunk: &mut [u8],
        mut before_answer: impl FnMut() -> String,
    ) -> bool {
        let end = match stdout.read(chunk) {
            Ok(0) => Ok(()),
            Ok(read) => return self.push(&chunk[..read], &mut before_answer),
            Err(error) => Err(error),
        };
        self.finish(end, before_answer);
        false
    }

    /// Adds `chunk`; false once nobody listens any more.
    fn push(&mut self, chunk: &[u8], mut before_answer: impl FnMut() -> String) -> bool {
        self.pending.extend_from_slice(chunk);
        while let Some(at) = memchr::memchr(b'\n', &self.pending[self.scanned..]) {
            let rest = self.pending.split_off(self.scanned + at + 1);
            let line = std::mem::replace(&mut self.pending, rest);
            self.scanned = 0;
            let answer = Answer {
                line: Ok(line),
                stderr: before_answer(),
            };
            if self.answers.send(answer).is_err() {
                return false;
            }
        }
        self.scanned = self.pending.len();
        true
    }

    /// Delivers the end of stdout: an unfinished last line, if any, then
    /// `end` (an empty line, or the read error).
    fn finish(&mut self, end: std::io::Result<()>, mut before_answer: impl FnMut() -> String) {
        if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            let stderr = before_answer();
            let _ = self.answers.send(Answer {
                line: Ok(line),
                stderr,
            });
        }
        let _ = self.answers.send(Answer {
            line: end.map(|()| Vec::new()),
            stderr: before_answer(),
        });
    }
}

/// Reads stdout and stderr in one thread, stderr first (spec
/// `runner.reports`): an implementation writes its stderr before the answer
/// it precedes, so by the time the answer's newline has been read, those
/// stderr bytes are already in the pipe; they are drained into the log
/// before the answer is delivered with them. No timing decides which vector
/// a line belongs to.
#[cfg(unix)]
fn read_outputs(
    mut stdout: ChildStdout,
    stderr: ChildStderr,
    sink: StderrSink,
    answers: Sender<Answer>,
) {
    use nix::errno::Errno;
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    use std::os::fd::AsFd;

    /// The stderr pipe while it is open.
    struct Stderr {
        pipe: Option<ChildStderr>,
        chunk: Vec<u8>,
        sink: StderrSink,
    }

    impl Stderr {
        /// Reads what the pipe holds now, then takes the log.
        fn drain_and_take(&mut self) -> String {
            self.drain();
            self.sink.take()
        }

        /// Reads what the pipe holds now (at most [`DRAIN_CHUNKS`] chunks)
        /// into the log.
        fn drain(&mut self) {
            for _ in 0..DRAIN_CHUNKS {
                let Some(pipe) = self.pipe.as_mut() else {
                    break;
                };
                if !ready(
                    &mut [PollFd::new(pipe.as_fd(), PollFlags::POLLIN)],
                    PollTimeout::ZERO,
                )[0]
                {
                    break;
                }
                match pipe.read(&mut self.chunk) {
                    Ok(read @ 1..) => self.sink.push(&self.chunk[..read]),
                    _ => self.pipe = None,
                }
            }
        }
    }

    /// Which of `fds` have something to read, or have ended, within
    /// `timeout` (all of them when poll itself fails, so that the read
    /// reports the failure).
    fn ready(fds: &mut [PollFd], timeout: PollTimeout) -> [bool; 2] {
        loop {
            match poll(fds, timeout) {
                Err(Errno::EINTR) => continue,
                Err(_) => return [true; 2],
                Ok(_) => {
                    let mut ready = [false; 2];
                    for (flag, fd) in ready.iter_mut().zip(fds.iter()) {
                        *flag = fd.any().unwrap_or(true);
                    }
                    return ready;
                }
            }
        }
    }

    let mut stderr = Stderr {
        pipe: Some(stderr),
        chunk: vec![0u8; READ_CHUNK],
        sink,
    };
    let mut chunk = vec![0u8; READ_CHUNK];
    let mut lines = LineSplitter::new(answers);
    loop {
        let [out_ready, err_ready] = match stderr.pipe.as_ref() {
            Some(pipe) => ready(
                &mut [
                    PollFd::new(stdout.as_fd(), PollFlags::POLLIN),
                    PollFd::new(pipe.as_fd(), PollFlags::POLLIN),
                ],
                PollTimeout::NONE,
            ),
            None => ready(
                &mut [PollFd::new(stdout.as_fd(), PollFlags::POLLIN)],
                PollTimeout::NONE,
            ),
        };
        if err_ready && stderr.pipe.is_some() {
            stderr.drain();
            continue;
        }
        if out_ready && !lines.read_from(&mut stdout, &mut chunk, || stderr.drain_and_take()) {
            if let Some(pipe) = stderr.pipe.take() {
                stderr.sink.pump_to_end(pipe);
            }
            return;
        }
    }
}

/// Elsewhere, stderr is read by a thread of its own and an answer carries
/// what had arrived when its line was read.
#[cfg(not(unix))]
fn read_outputs(
    mut stdout: ChildStdout,
    stderr: ChildStderr,
    sink: StderrSink,
    answers: Sender<Answer>,
) {
    let pump = sink.clone();
    thread::spawn(move || pump.pump_to_end(stderr));
    let mut lines = LineSplitter::new(answers);
    let mut chunk = vec![0u8; READ_CHUNK];
    while lines.read_from(&mut stdout, &mut chunk, || sink.take()) {}
}

impl Drop for Running {
    fn drop(&mut self) {
        // The process may already be gone; there is nothing left to report.
        // Closing stdin asks a healthy implementation to exit (and flush its
        // logs); then the whole process group goes, so that a program
        // started by `sh -c` (which does not always `exec` it), and anything
        // it started, cannot outlive the run.
        drop(self.stdin.take());
        if !self.failed {
            let deadline = Instant::now() + EXIT_GRACE;
            while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
                thread::sleep(Duration::from_millis(5));
            }
        }
        #[cfg(unix)]
        if let Ok(group) = i32::try_from(self.child.id()) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(group),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl External {
    /// An implementation run by `command`, each answer awaited at most
    /// `timeout`.
    pub fn new(command: &str, timeout: Duration) -> External {
        External {
            command: command.to_owned(),
            pace: Pace::new(timeout, default_grace(timeout)),
            patient: true,
            last_slow: None,
            running: None,
            next_id: 0,
            last_stderr: String::new(),
            backtraces: true,
            pass_stderr: true,
        }
    }

    /// The same, waiting `grace` after the timeout before taking the
    /// implementation to hang (spec `runner.slow`; zero: no grace).
    pub fn with_grace(mut self, grace: Duration) -> External {
        self.pace = self.pace.with_grace(grace);
        self
    }

    /// The same, its stderr kept for reports but not passed through (for
    /// `differential`, where thousands of generated requests would flood
    /// the terminal with the implementations' logs).
    pub fn quiet(mut self) -> External {
        self.pass_stderr = false;
        self
    }

    /// The same, started without the backtrace variables of this process's
    /// environment unless `keep` is set: each crash of a Rust port then
    /// costs a panic message, not a backtrace (spec `runner.differential`).
    pub fn with_backtraces(mut self, keep: bool) -> External {
        self.backtraces = keep;
        self
    }

    fn start(&mut self) -> Result<(), String> {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if !self.backtraces {
            command
                .env_remove("RUST_BACKTRACE")
                .env_remove("RUST_LIB_BACKTRACE");
        }
        // Its own process group, killed as a whole (see `Drop for Running`).
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|error| format!("cannot start {:?}: {error}", self.command))?;
        let stdin = child.stdin.take().ok_or("child has no stdin")?;
        let stdout = child.stdout.take().ok_or("child has no stdout")?;
        let child_stderr = child.stderr.take().ok_or("child has no stderr")?;
        let stderr = StderrSink {
            log: Arc::new(Mutex::new(StderrLog::default())),
            pass_through: self.pass_stderr,
        };
        let sink = stderr.clone();
        let (sender, answers) = mpsc::channel();
        // A reader thread, so that writing a request never deadlocks against
        // an unread answer or a full stderr pipe, and a hung process can be
        // timed out.
        thread::spawn(move || read_outputs(stdout, child_stderr, sink, sender));
        self.running = Some(Running {
            child,
            stdin: Some(stdin),
            failed: false,
            answers,
            stderr,
        });
        self.next_id = 0;
        Ok(())
    }

    fn exchange(&mut self, op: &str, input: &Json) -> Result<Outcome, String> {
        if self.running.is_none() {
            self.start()?;
            if op != "describe" {
                // A restarted implementation must describe itself again.
                let described = self
                    .exchange("describe", &Json::Object(Vec::new()))
                    .map_err(|problem| format!("describe after restart: {problem}"))?;
                match described {
                    Outcome::Output(output) => Description::from_output(&output)
                        .map_err(|problem| format!("describe after restart: {problem}"))?,
                    Outcome::Error { code, .. } => {
                        return Err(format!("describe after restart failed: {code}"))
                    }
                };
            }
        }
        let id = JsString::from(self.next_id.to_string());
        self.next_id += 1;
        let request = Request {
            id: id.clone(),
            op: op.to_owned(),
            input: input.clone(),
        };
        let running = self.running.as_mut().ok_or("implementation not running")?;
        let stdin = running.stdin.as_mut().ok_or("implementation not running")?;
        let request_line = request.to_line();
        if let Err(error) = writeln!(stdin, "{request_line}").and_then(|()| stdin.flush()) {
            return Err(match exit_status(&mut running.child) {
                Some(status) => {
                    // What it said as it went (a panic message) comes with
                    // the end of its output, and is this vector's.
                    if let Ok(end) = running.answers.recv_timeout(EXIT_GRACE) {
                        self.last_stderr = end.stderr;
                    }
                    format!("implementation exited ({status}) before reading the request")
                }
                None => {
                    self.last_stderr = running.stderr.take();
                    format!("cannot write request: {error}")
                }
            });
        }
        let asked = Instant::now();
        let wait = self.pace.wait_for(op, request_line.len());
        let grace = if self.patient {
            wait.grace
        } else {
            Duration::ZERO
        };
        let answer = match running.answers.recv_timeout(wait.limit) {
            Err(RecvTimeoutError::Timeout) if !grace.is_zero() => {
                // spec runner.slow: a late answer is compared, and said.
                let late = running.answers.recv_timeout(grace);
                if late.is_ok() {
                    self.last_slow = Some(Slow {
                        took: asked.elapsed(),
                        limit: wait.limit,
                    });
                }
                late
            }
            answer => answer,
        };
        let answer = match answer {
            Ok(answer) => {
                self.pace.answered(op, request_line.len(), asked.elapsed());
                answer
            }
            Err(RecvTimeoutError::Timeout) => {
                self.last_stderr = running.stderr.take();
                self.pace.hung(op);
                let mut problem = format!("{NO_ANSWER} {:?}", wait.limit);
                if wait.scaled {
                    problem.push_str(&format!(
                        " ({HUNG_OP_FACTOR} times its op's slowest answer to a request of this size: the op hung before)"
                    ));
                }
                if !grace.is_zero() {
                    problem.push_str(&format!(" and {grace:?} more (the grace period)"));
                }
                return Err(problem);
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.last_stderr = running.stderr.take();
                return Err("implementation output closed".to_owned());
            }
        };
        // runner.reports: what it wrote to stderr before this line is this
        // vector's, whenever those bytes arrived.
        self.last_stderr = answer.stderr;
        let line = match answer.line {
            Ok(line) if line.is_empty() => {
                return Err(match exit_status(&mut running.child) {
                    Some(status) => format!("implementation exited ({status}) without answering"),
                    None => "implementation closed its output without answering".to_owned(),
                });
            }
            Ok(line) => line,
            Err(error) => return Err(format!("cannot read answer: {error}")),
        };
        let text = std::str::from_utf8(&line).map_err(|_| "answer is not UTF-8".to_owned())?;
        let response = Response::from_line(text.trim_end_matches(['\n', '\r']))?;
        if response.id.as_ref() != Some(&id) {
            let found = response
                .id
                .map_or("null".to_owned(), |found| json::quote_ascii(found.units()));
            return Err(format!(
                "answer has id {found}, expected {}",
                json::quote_ascii(id.units())
            ));
        }
        Ok(response.outcome)
    }

    fn call_or_restart(&mut self, op: &str, input: &Json) -> Result<Outcome, String> {
        let result = self.exchange(op, input);
        if result.is_err() {
            if let Some(running) = self.running.as_mut() {
                running.failed = true;
            }
            self.running = None;
        }
        result
    }
}

/// The exit status of a child whose output closed or whose input broke,
/// waiting a little for it: the pipe often closes just before the exit is
/// visible, so that a crash is reported the same way every time.
fn exit_status(child: &mut Child) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + Duration::from_millis(500);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
            _ => return None,
        }
    }
}

impl Implementation for External {
    fn describe(&mut self) -> Result<Description, String> {
        match self.call_or_restart("describe", &Json::Object(Vec::new()))? {
            Outcome::Output(output) => Description::from_output(&output),
            Outcome::Error { code, message } => Err(format!("describe failed: {code}: {message}")),
        }
    }

    fn call(&mut self, op: &str, input: &Json) -> Result<Outcome, String> {
        self.last_stderr.clear();
        self.last_slow = None;
        self.call_or_restart(op, input)
    }

    fn take_stderr(&mut self) -> String {
        std::mem::take(&mut self.last_stderr)
    }

    fn take_slow(&mut self) -> Option<Slow> {
        self.last_slow.take()
    }

    fn set_patient(&mut self, patient: bool) {
        self.patient = patient;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn describe(text: &str) -> Result<Description, String> {
        Description::from_output(&json::parse(text).expect("test JSON"))
    }

    #[test]
    fn describe_may_declare_protocol_one_and_nothing_else() {
        // runner.exit-status: an unusable describe stops the run (exit 2).
        let base = r#""name":"n","version":"1","features":["uri"]"#;
        assert!(describe(&format!("{{{base}}}")).is_ok());
        assert!(describe(&format!("{{{base},\"protocol\":1}}")).is_ok());
        let two = describe(&format!("{{{base},\"protocol\":2}}")).unwrap_err();
        assert!(two.contains("declares protocol 2"), "{two}");
        assert!(describe(&format!("{{{base},\"protocol\":\"1\"}}")).is_err());
        assert!(describe(r#"{"name":"n","version":"1","features":"uri"}"#).is_err());
        assert!(describe(r#"{"name":"n","features":[]}"#).is_err());
    }

    /// runner.releases, runner.releases.before-rc8: a port that names a
    /// release is run as that
    /// release's ops and behaviours; a release before rc.8 has no
    /// `pre-step` and no Remote face, 0.1.1-rc.2 is rc.8; with features
    /// beside the release, its ops are those the release has; an unknown
    /// release is an unusable describe that lists the known ones.
    #[test]
    fn a_declared_release_is_its_ops_and_behaviours() {
        let rc5 = describe(r#"{"name":"n","version":"1","release":"0.1.0-rc.5"}"#)
            .expect("a release in place of features")
            .declared();
        assert_eq!(rc5.features, Features::RC8);
        assert!(!rc5.answers("pre-step") && !rc5.answers("candidates/remote"));
        assert!(rc5.answers("candidates/list") && rc5.answers("prepare"));
        assert_eq!(rc5.names()[6], "candidates-list");
        let rc7 = features::release("0.1.0-rc.7").expect("rc.7");
        assert_eq!(rc5.ops, Declared::release(rc7).ops);

        let rc8 = features::release("0.1.0-rc.8").expect("rc.8");
        let later = describe(r#"{"name":"n","version":"1","release":"0.1.1-rc.2"}"#)
            .expect("0.1.1-rc.2")
            .declared();
        assert_eq!(
            (later.ops, later.features),
            (Declared::release(rc8).ops, Features::RC8)
        );

        let both = describe(
            r#"{"name":"n","version":"1","release":"0.1.0-rc.7","features":["candidates-v1","same-workspace"]}"#,
        )
        .expect("features beside a release")
        .declared();
        assert_eq!(both.ops, ["candidates/list"]);
        assert_eq!(both.features, Features::RC8);

        let unknown = describe(r#"{"name":"n","version":"1","release":"0.1.4"}"#).unwrap_err();
        assert!(
            unknown.contains("unknown release \"0.1.4\"")
                && unknown.contains("0.0.1-rc.1")
                && unknown.contains("0.1.1-rc.2"),
            "{unknown}"
        );
    }

    /// runner.reports: what an implementation writes to stderr before an
    /// answer is that vector's, however the two pipes' bytes interleave on
    /// the way: a few hundred requests, each answer preceded by a stderr
    /// line of its own (some by more than a pipe holds, one by a crash),
    /// each line found on its own request.
    #[test]
    fn stderr_written_before_an_answer_belongs_to_that_answer() {
        let script =
            std::env::temp_dir().join(format!("dsh-runner-stderr-{}.sh", std::process::id()));
        std::fs::write(
            &script,
            r#"n=0
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed 's/^{"id":"\([^"]*\)".*/\1/')
  n=$((n+1))
  printf 'log of request %s\n' "$n" >&2
  if [ $((n % 50)) = 0 ]; then head -c 100000 /dev/zero | tr '\0' x >&2; fi
  if [ "$n" = 120 ]; then printf 'panicked at request %s\n' "$n" >&2; exit 101; fi
  if [ "$n" = 1 ]; then
    printf '{"id":"%s","output":{"name":"n","version":"1","features":["uri"]}}\n' "$id"
  else
    printf '{"id":"%s","output":"ok %s"}\n' "$id" "$n"
  fi
done
"#,
        )
        .expect("temporary script");
        let mut external =
            External::new(&format!("sh {}", script.display()), Duration::from_secs(20)).quiet();
        assert!(external.describe().is_ok());
        assert_eq!(external.take_stderr(), "log of request 1\n");
        let input = Json::object([("sessionId", Json::str("a"))]);
        // The process answers requests 2..=119; the 120th crashes it, and a
        // new process (described again, request 1 of its own) answers on.
        for call in 2..=230 {
            let n = if call <= 120 { call } else { call - 119 };
            let answer = external.call("uri/encode", &input);
            let stderr = external.take_stderr();
            let line = format!("log of request {n}\n");
            if call == 120 {
                assert!(answer.is_err(), "{answer:?}");
                assert_eq!(stderr, format!("{line}panicked at request 120\n"));
                continue;
            }
            assert_eq!(
                answer,
                Ok(Outcome::Output(Json::str(&format!("ok {n}")))),
                "call {call}"
            );
            if n % 50 == 0 {
                let dropped = line.len() + 100_000 - STDERR_LIMIT;
                let (start, end) = (&stderr[..line.len()], &stderr[STDERR_LIMIT..]);
                assert_eq!(start, line, "call {call}");
                assert_eq!(end, format!("\n… ({dropped} more bytes)"), "call {call}");
            } else {
                assert_eq!(stderr, line, "call {call}");
            }
        }
        let _ = std::fs::remove_file(&script);
    }

    /// runner.protocol-failure, runner.restart: an implementation that
    /// exits after its first answer fails the next call with a protocol
    /// failure, and the call after that is answered by a new process (which
    /// is asked `describe` first).
    #[test]
    fn a_dead_process_fails_one_call_and_is_started_again() {
        // Answers each request by its id (the first is `describe`), then
        // exits after its second answer.
        let script =
            std::env::temp_dir().join(format!("dsh-runner-restart-{}.sh", std::process::id()));
        std::fs::write(
            &script,
            r#"n=0
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed 's/^{"id":"\([^"]*\)".*/\1/')
  if [ "$n" = 0 ]; then
    printf '{"id":"%s","output":{"name":"n","version":"1","features":["uri"]}}\n' "$id"
  else
    printf '{"id":"%s","output":"ok"}\n' "$id"
  fi
  n=$((n+1))
  [ "$n" = 2 ] && exit 0
done
"#,
        )
        .expect("temporary script");
        let mut external =
            External::new(&format!("sh {}", script.display()), Duration::from_secs(10));
        assert!(external.describe().is_ok());
        let input = Json::object([("sessionId", Json::str("a"))]);
        assert_eq!(
            external.call("uri/encode", &input),
            Ok(Outcome::Output(Json::str("ok")))
        );
        let failure = external.call("uri/encode", &input);
        assert!(failure.is_err(), "{failure:?}");
        assert_eq!(
            external.call("uri/encode", &input),
            Ok(Outcome::Output(Json::str("ok"))),
            "a new process answers after the failure"
        );
        let _ = std::fs::remove_file(&script);
    }
}
