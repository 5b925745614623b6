//! Where one run's output goes: hdparm's text on stdout/stderr as each step produces it, or,
//! with `--json`, the typed reports collected into one envelope printed at the end.
//!
//! Steps never write to stdout directly: they hand typed items to [`Output`], which renders
//! them as text at once (so the order and flushing match hdparm's, including the timing
//! lines that are printed in two halves) or keeps them for the JSON document.
//!
//! JSON outcomes: a set (`SettingsItem::Set`) or an action ([`Output::action`]) is recorded as
//! `done` and stays open until its step ends ([`Output::end_step`]); an error reported while it
//! is open marks it `failed`. Steps are one option each (the step runner ends each one), so an
//! error always belongs to the set or action of its own step.

use crate::cli::defs::OptionDef;
use crate::error::{Error, ErrorClass, Verdict};
use crate::report::envelope::{ActionRecord, DeviceJson, Envelope, Message};
use crate::report::settings::{Outcome, SettingsItem};
use std::cell::RefCell;
use std::io::{self, Write};
use std::rc::Rc;

/// A record of the current device that is still open to an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Open {
    /// `settings[i]`, a set.
    Set(usize),
    /// `actions[i]`.
    Action(usize),
}

/// The run's stderr, shared by the output and the device layer's `--verbose` trace, so that
/// hdparm's dumps land in the writer the caller gave, in the order they are made.
#[derive(Clone)]
pub struct SharedStderr<'a>(Rc<RefCell<&'a mut dyn Write>>);

impl SharedStderr<'_> {
    fn with<T>(&self, f: impl FnOnce(&mut dyn Write) -> io::Result<T>) -> io::Result<T> {
        match self.0.try_borrow_mut() {
            Ok(mut w) => f(&mut **w),
            // Writes never nest (one thread, and no writer calls back into another), so this
            // cannot happen; an error keeps it from being a panic.
            Err(_) => Err(io::Error::other("stderr is already being written")),
        }
    }
}

impl Write for SharedStderr<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.with(|w| w.write(buf))
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.with(|w| w.write_all(buf))
    }
    fn flush(&mut self) -> io::Result<()> {
        self.with(|w| w.flush())
    }
}

pub struct Output<'a> {
    pub json: bool,
    stdout: &'a mut dyn Write,
    stderr: SharedStderr<'a>,
    envelope: Envelope,
    /// The device being processed (JSON mode).
    current: Option<DeviceJson>,
    /// The set or action of the current step whose outcome an error would change.
    open: Option<Open>,
    pub verdict: Verdict,
    /// Whether stderr is a terminal (progress lines are drawn only there).
    stderr_is_terminal: bool,
    /// The device being processed, and whether its name is added to each error line that
    /// does not already name it (several devices on the command line: hdparm's lines would not
    /// say which one failed).
    device_name: Option<String>,
    name_devices: bool,
    /// Every error reported, by class and line, in order (`--dry-run` reads what its scratch
    /// run of the steps reported).
    errors: Vec<(ErrorClass, String)>,
    /// The settings items of the run, kept when asked ([`Output::keep_items`]) for a caller
    /// that reads the values (`--apply`, `--experiment`).
    kept: Option<Vec<SettingsItem>>,
}

impl<'a> Output<'a> {
    pub fn new(
        json: bool,
        argv: Vec<String>,
        stdout: &'a mut dyn Write,
        stderr: &'a mut dyn Write,
    ) -> Self {
        Output {
            json,
            stdout,
            stderr: SharedStderr(Rc::new(RefCell::new(stderr))),
            envelope: Envelope::new(argv),
            current: None,
            open: None,
            verdict: Verdict::default(),
            stderr_is_terminal: false,
            device_name: None,
            name_devices: false,
            errors: Vec::new(),
            kept: None,
        }
    }

    /// Says whether the stderr given to [`Output::new`] is a terminal (the binary knows; an
    /// in-memory writer is not).
    pub fn set_stderr_is_terminal(&mut self, yes: bool) {
        self.stderr_is_terminal = yes;
    }

    /// Whether progress lines may be drawn on stderr.
    pub fn stderr_is_terminal(&self) -> bool {
        self.stderr_is_terminal
    }

    /// Starts a device: hdparm's header (`\n/dev/sda:\n`) unless quiet, or a JSON device object.
    /// Error lines name their device from now on (more than one device on the command line).
    pub fn name_devices_in_errors(&mut self) {
        self.name_devices = true;
    }

    pub fn begin_device(&mut self, name: &str, quiet: bool) {
        self.device_name = Some(name.to_string());
        if self.json {
            self.current = Some(DeviceJson {
                name: name.to_string(),
                ..Default::default()
            });
        } else if !quiet {
            let _ = write!(self.stdout, "\n{name}:\n");
        }
    }

    /// Records what kind of device this is (JSON only; the text has no such line).
    pub fn device_kind(&mut self, kind: &str, description: &str) {
        if let Some(dev) = self.current.as_mut() {
            dev.kind = Some(kind.to_string());
            dev.description = Some(description.to_string());
        }
    }

    /// Ends the current device.
    pub fn end_device(&mut self) {
        self.open = None;
        self.device_name = None;
        if let Some(dev) = self.current.take() {
            self.envelope.devices.push(dev);
        }
        let _ = self.stdout.flush();
    }

    /// A settings line. A set stays open to an error until its step ends.
    pub fn item(&mut self, item: SettingsItem) {
        if let Some(kept) = self.kept.as_mut() {
            kept.push(item.clone());
        }
        if self.json {
            if let Some(dev) = self.current.as_mut() {
                if matches!(item, SettingsItem::Set { .. }) {
                    self.open = Some(Open::Set(dev.settings.len()));
                }
                dev.settings.push(item);
            }
        } else {
            let _ = self.stdout.write_all(item.text().as_bytes());
        }
    }

    /// An action being carried out (`-y`, `-z`, `-F`...): recorded in JSON as `done`, and
    /// open to an error until its step ends. Text has no line for it (the step prints
    /// hdparm's own, when noisy).
    pub fn action(&mut self, action: &'static str, option: &OptionDef) {
        self.action_on(action, option, None);
    }

    /// [`Output::action`] for an action that writes a file (`--Iraw`).
    pub fn action_on(&mut self, action: &'static str, option: &OptionDef, path: Option<String>) {
        self.action_spelled(action, option.spelling(), path);
    }

    /// [`Output::action_on`] under a name that is no option's spelling (NVMe's one
    /// `--sanitize` action for the three kinds).
    pub fn action_spelled(&mut self, action: &'static str, option: String, path: Option<String>) {
        if let Some(dev) = self.current.as_mut() {
            self.open = Some(Open::Action(dev.actions.len()));
            dev.actions.push(ActionRecord {
                action,
                option,
                outcome: Outcome::Done,
                path,
            });
        }
    }

    /// Ends a step: later errors no longer change the outcome of its set or action.
    pub fn end_step(&mut self) {
        self.open = None;
    }

    /// The help text (`-h`): JSON has it as `help`; text prints it.
    pub fn help(&mut self, text: &str) {
        if self.json {
            self.envelope.help = Some(text.to_string());
        } else {
            let _ = self.stdout.write_all(text.as_bytes());
        }
    }

    /// Text that only exists in the text rendering (its JSON twin is given separately), such as
    /// the `-I` decode or a timing line. Flushed at once: hdparm flushes before long waits.
    pub fn text(&mut self, text: &str) {
        self.bytes(text.as_bytes());
    }

    /// [`Output::text`] for bytes that need not be UTF-8: drive strings (model, serial,
    /// firmware...) reach stdout exactly as the drive gave them, as hdparm prints them.
    pub fn bytes(&mut self, bytes: &[u8]) {
        if !self.json {
            let _ = self.stdout.write_all(bytes);
            let _ = self.stdout.flush();
        }
    }

    /// A JSON section of `value`, serialized only when a JSON document is being built: the
    /// text of `-I` and `--Istdin` must not pay for a JSON tree nobody reads (it was a
    /// measurable part of `--Istdin`'s start-up).
    pub fn section_of<T: serde::Serialize + ?Sized>(&mut self, key: &str, value: &T) {
        if self.current.is_some() {
            let value = serde_json::to_value(value).unwrap_or_default();
            self.section(key, value);
        }
    }

    /// A typed section of the current device, under its key (`report::sections`).
    pub fn put<T: crate::report::sections::Section>(&mut self, value: &T) {
        self.section_of(T::KEY, value);
    }

    /// A JSON section of the current device (`identify`, `kernel_identity`, or any other key).
    pub fn section(&mut self, key: &str, value: serde_json::Value) {
        if let Some(dev) = self.current.as_mut() {
            match key {
                "identify" => dev.identify = Some(value),
                "kernel_identity" => dev.kernel_identity = Some(value),
                "timing" => dev.timing.push(value),
                _ => {
                    dev.other.insert(key.to_string(), value);
                }
            }
        }
    }

    /// An error: its line on stderr (always), a message in JSON, and the verdict. The open
    /// set or action, if any, failed.
    pub fn error(&mut self, error: &Error) {
        let _ = self.stdout.flush();
        let named = match (&self.device_name, self.name_devices) {
            (Some(name), true) if !error.message.contains(name.as_str()) => {
                format!("{} ({name})", error.message)
            }
            _ => error.message.clone(),
        };
        let _ = writeln!(self.stderr, "{named}");
        self.record_error(error);
    }

    /// An error whose stderr text is not its one line (a usage error prints hdparm's usage
    /// text with its clue): `text` goes to stderr as it is, the line to the JSON message.
    pub fn error_with_text(&mut self, error: &Error, text: &str) {
        let _ = self.stdout.flush();
        let _ = self.stderr.write_all(text.as_bytes());
        self.record_error(error);
    }

    fn record_error(&mut self, error: &Error) {
        self.verdict.record(error.class);
        self.errors.push((error.class, error.message.clone()));
        if let (Some(open), Some(dev)) = (self.open, self.current.as_mut()) {
            match open {
                Open::Set(i) => {
                    if let Some(SettingsItem::Set { outcome, .. }) = dev.settings.get_mut(i) {
                        *outcome = Outcome::Failed;
                    }
                }
                Open::Action(i) => {
                    if let Some(action) = dev.actions.get_mut(i) {
                        action.outcome = Outcome::Failed;
                    }
                }
            }
        }
        self.message("error", Some(error.class), &error.message);
    }

    /// The report of a run that a signal stopped, after its last device: the lines on stderr,
    /// the document's `stop` object and a message of class stopped (the exit status).
    pub fn stop_report(&mut self, report: &crate::report::stop::StopReport) {
        let error = Error::new(ErrorClass::Stopped(report.signal), report.headline());
        self.error_with_text(&error, &report.text());
        self.envelope.stop = Some(report.json());
    }

    /// Every error reported so far: its class and its line.
    pub fn errors(&self) -> &[(ErrorClass, String)] {
        &self.errors
    }

    /// A line on stderr that is not a failure (hdparm's informational stderr lines).
    pub fn note(&mut self, text: &str) {
        let _ = self.stdout.flush();
        let _ = writeln!(self.stderr, "{text}");
        self.message("warning", None, text);
    }

    fn message(&mut self, severity: &'static str, class: Option<ErrorClass>, text: &str) {
        let msg = Message {
            severity,
            class: class.map(ErrorClass::name),
            text: text.to_string(),
        };
        match self.current.as_mut() {
            Some(dev) => dev.messages.push(msg),
            None => self.envelope.messages.push(msg),
        }
    }

    /// Both streams, for steps that print as they measure (the timings). They print nothing
    /// on stdout in JSON mode themselves.
    pub fn streams(&mut self) -> (&mut dyn Write, &mut dyn Write) {
        (&mut *self.stdout, &mut self.stderr)
    }

    /// The stderr writer for the device layer's `--verbose` trace (hdparm writes its dumps to
    /// stderr as it sends each command).
    pub fn trace_writer(&self) -> SharedStderr<'a> {
        self.stderr.clone()
    }

    /// Keeps a copy of every settings item from now on, for [`Output::finish_keeping`].
    pub fn keep_items(&mut self) {
        self.kept.get_or_insert_with(Vec::new);
    }

    /// [`Output::finish`], with the items kept since [`Output::keep_items`].
    pub fn finish_keeping(mut self) -> (u8, Vec<SettingsItem>) {
        let kept = self.kept.take().unwrap_or_default();
        (self.finish(), kept)
    }

    /// Ends the run: prints the JSON document if any, and returns the exit status.
    pub fn finish(mut self) -> u8 {
        let status = self.verdict.exit_status();
        if let Some(dev) = self.current.take() {
            self.envelope.devices.push(dev);
        }
        if self.json {
            self.envelope.hdparm_rs.exit_status = status;
            let _ = self.stdout.write_all(self.envelope.render().as_bytes());
        }
        let _ = self.stdout.flush();
        status
    }
}
