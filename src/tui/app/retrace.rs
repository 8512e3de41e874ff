//! Why the stepper traces again, the first full trace after it opened on
//! shapes or a key that switched one setting of the model, and what every
//! such trace is given: the command line's weights, input and limits.

use super::App;
use crate::Run;
use crate::config::ModelConfig;
use crate::why::Why;
use std::fmt;

/// Why a trace is run: the first full trace, with values, after the
/// stepper opened on shapes; or a live switch of the model.
/// Shown as `values` or the switch's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retrace {
    /// The full trace that replaces the shape-only one the stepper opens on.
    Values,
    /// A key changed one setting of the model.
    Switch(Switch),
}

/// A setting of the model a key switches live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switch {
    /// The FFN's activation function.
    Activation,
    /// LayerNorm or RMSNorm.
    Norm,
    /// Pre-LN or post-LN.
    Placement,
    /// The teaching fault, or none.
    Fault,
    /// The device shown of a split model.
    Device,
    /// The watched model file, edited (`--watch`).
    File,
}

impl Switch {
    /// The setting's new value in `cfg`, as shown, e.g. `relu`.
    pub(super) fn value(self, cfg: &ModelConfig) -> String {
        match self {
            Switch::Activation => cfg.mlp.act.to_string(),
            Switch::Norm => cfg.norms.kind.to_string(),
            Switch::Placement => cfg.norms.placement.to_string(),
            Switch::Fault => cfg
                .fault
                .map_or_else(|| "none".to_string(), |f| f.to_string()),
            Switch::File => crate::text::shown(&cfg.preset).to_string(),
            Switch::Device => cfg.devices.device.to_string(),
        }
    }
}

impl fmt::Display for Switch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Switch::Activation => "activation",
            Switch::Norm => "norm",
            Switch::Placement => "placement",
            Switch::Fault => "fault",
            Switch::File => "model file",
            Switch::Device => "device",
        })
    }
}

impl Retrace {
    /// The catalog key of its name, e.g. `ui-switch-activation`.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Retrace::Values => "ui-switch-values",
            Retrace::Switch(Switch::Activation) => "ui-switch-activation",
            Retrace::Switch(Switch::Norm) => "ui-switch-norm",
            Retrace::Switch(Switch::Placement) => "ui-switch-placement",
            Retrace::Switch(Switch::Fault) => "ui-switch-fault",
            Retrace::Switch(Switch::File) => "ui-switch-model-file",
            Retrace::Switch(Switch::Device) => "ui-switch-device",
        }
    }
}

impl fmt::Display for Retrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Retrace::Values => f.write_str("values"),
            Retrace::Switch(s) => fmt::Display::fmt(s, f),
        }
    }
}

/// What the command line gave the stepper beyond the config: the request
/// its full traces run under (loaded `--weights` and `--input`, the mode,
/// `--max-memory`) and the files' names for the header.
#[derive(Debug, Clone)]
pub struct Given {
    /// Always with values; never with hooks (each trace adds its own).
    pub req: crate::Request,
    /// The files the weights and input came from, e.g. `ckpt.safetensors`.
    pub label: Option<String>,
}

impl Default for Given {
    /// Seeded weights and input, the default mode and limit.
    fn default() -> Self {
        Self::new(&crate::Request::default(), None)
    }
}

impl Given {
    /// What `req` (from the command line) gives the stepper; `label`
    /// names the files.
    #[must_use]
    pub fn new(req: &crate::Request, label: Option<String>) -> Self {
        let req = crate::Request {
            values: true,
            hooks: crate::Hooks::default(),
            ..req.clone()
        };
        Self { req, label }
    }
}

impl App {
    /// Asks the event loop to re-trace with `cfg`; the shown trace stays
    /// until the new one is done.
    pub(super) fn rerun(&mut self, cfg: ModelConfig, switch: Switch) {
        if let Some(producer) = &self.foreign {
            self.status = Some(
                self.tr(&Why::new("ui-status-foreign-switch")
                    .arg("producer", crate::text::shown(producer).to_string())),
            );
            return;
        }
        let what = Retrace::Switch(switch);
        let said = self.said(what);
        self.status = Some(self.tr(&Why::new("ui-status-tracing").arg("what", said)));
        self.ask_trace(cfg, what);
    }

    /// The watched model file changed: re-trace it on the same step, or
    /// say in the status line why it cannot be used and keep the last good
    /// trace on screen.
    pub fn reload(&mut self, read: Result<ModelConfig, String>) {
        match read {
            Ok(cfg) => self.rerun(cfg, Switch::File),
            Err(e) => {
                self.status = Some(
                    self.tr(&Why::new("ui-status-file-bad")
                        .arg("error", crate::text::one_line(&e).to_string())),
                );
            }
        }
    }

    /// Shows a finished trace, keeping the cursor on the same path. A
    /// switch's trace brings a new model, so the labs' generation moves.
    pub(super) fn traced(&mut self, what: Retrace, result: Result<Run, crate::error::Error>) {
        let path = self.path(self.cursor).map(str::to_string);
        match (what, result) {
            (Retrace::Values, Ok(run)) => {
                self.status = shapes_only_note(self.lang, &run.plan).or_else(|| {
                    self.given.label.as_ref().map(|l| {
                        self.tr(&Why::new("ui-status-values-from").arg("label", l.as_str()))
                    })
                });
                self.run = run;
            }
            (Retrace::Switch(switch), Ok(run)) => {
                let before = std::mem::replace(&mut self.run, run);
                self.generation += 1;
                // The first switch away from a replay keeps it for `v`.
                let left = self.source.take();
                if let Some(file) = &left {
                    self.left_replay = Some(Box::new((before, file.clone())));
                }
                let value = switch.value(self.cfg());
                let same =
                    path.and_then(|p| (0..self.rows()).find(|&i| self.path(i) == Some(p.as_str())));
                self.cursor = same
                    .unwrap_or(self.cursor)
                    .min(self.rows().saturating_sub(1));
                self.quiz_rerun();
                // Reveal mode goes on from the step the cursor kept.
                if let super::Overlay::Reveal(r) = &mut self.overlay {
                    *r = self.cursor;
                }
                let name = self.said(what);
                let said = match &self.run.trace.failure {
                    Some(f) => self.tr(&Why::new("ui-status-stops")
                        .arg("what", name)
                        .arg("value", value)
                        .arg("check", f.check.as_str())
                        .arg("path", f.path.as_str())),
                    None => self.tr(&Why::new("ui-status-retraced")
                        .arg("what", name)
                        .arg("value", value)),
                };
                self.status = Some(match left {
                    Some(file) => self.tr(&Why::new("ui-status-live")
                        .arg("said", said)
                        .arg("file", crate::text::shown(&file).to_string())),
                    None => said,
                });
            }
            // An edit the model cannot take (one whose trace would not
            // fit, say) is a broken edit: the last good trace stays.
            (Retrace::Switch(Switch::File), Err(e)) => {
                self.status = Some(
                    self.tr(&Why::new("ui-status-file-bad")
                        .arg("error", crate::text::one_line(&e.to_string()).to_string())),
                );
            }
            (_, Err(e)) => {
                let cannot = Why::new("ui-status-cannot")
                    .arg("what", self.said(what))
                    .arg("error", e.to_string());
                self.status = Some(self.tr(&cannot));
            }
        }
    }
}

impl App {
    /// What was re-traced (`fault`, `model file`), in the app's language.
    pub(super) fn said(&self, what: Retrace) -> String {
        self.t(what.key())
    }

    /// Shows the replayed log again that a switch left for a live run.
    pub(super) fn back_to_replay(&mut self) {
        let Some(left) = self.left_replay.take() else {
            if self.source.is_none() {
                self.status = Some(self.t("ui-status-no-replay"));
            }
            return;
        };
        let (run, file) = *left;
        // A switch still being traced would replace the replay: dropped.
        self.tracing = None;
        self.asked = None;
        self.progress = None;
        self.run = run;
        self.generation += 1;
        self.cursor = self.cursor.min(self.rows().saturating_sub(1));
        self.quiz_rerun();
        self.status = Some(
            self.tr(&Why::new("ui-status-replaying-again")
                .arg("file", crate::text::shown(&file).to_string())),
        );
        self.source = Some(file);
    }
}

/// [`crate::Plan::short_note`] in `lang`: the same words in English, the
/// catalog's (`ui-status-shapes-only`) in another language.
#[must_use]
pub(super) fn shapes_only_note(lang: crate::i18n::Lang, plan: &crate::Plan) -> Option<String> {
    use crate::config::human_bytes;
    plan.switched.then(|| {
        lang.why(
            &Why::new("ui-status-shapes-only")
                .arg("estimate", human_bytes(plan.estimate))
                .arg("limit", human_bytes(plan.limit)),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::shapes_only_note;
    use crate::i18n::Lang;

    #[test]
    fn the_shapes_only_note_is_the_plans_in_english_and_the_catalogs_in_zh_tw() {
        let plan = crate::Plan {
            mode: crate::trace::Mode::ShapeOnly,
            estimate: 3 << 30,
            limit: 1 << 30,
            switched: true,
        };
        assert_eq!(shapes_only_note(Lang::En, &plan), plan.short_note());
        let zh = shapes_only_note(Lang::ZhTw, &plan).expect("switched");
        assert!(
            zh.starts_with("只追蹤形狀") && zh.contains("--max-memory"),
            "{zh}"
        );
        let kept = crate::Plan {
            switched: false,
            ..plan
        };
        assert_eq!(shapes_only_note(Lang::ZhTw, &kept), None);
    }
}
