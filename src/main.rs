//! The `shapetrace` binary: parse the command line, dispatch, and turn
//! every error into one line on stderr with exit code 2.

mod cli;
mod labs;
mod out;
mod progress;

use clap::Parser;
use cli::{CheckFormat, Cli, Command, TraceArgs, TraceFormat};
use color_eyre::eyre::Result;
use shapetrace::i18n::Lang;
use shapetrace::plan::Request;
use shapetrace::report::table;
use shapetrace::trace::log;
use shapetrace::{Run, tui};
use std::io::{self, Write};
use std::process::ExitCode;

/// A numeric trace frees and takes megabytes per op; mimalloc, told to
/// keep freed memory, hands those pages to the next op as they are (the
/// benches do the same).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    #[allow(unsafe_code)]
    // SAFETY: the first line of main: no other thread exists yet.
    unsafe {
        shapetrace::allocator::keep_freed_memory();
    }
    install_hooks();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    match dispatch(&cli) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            out::say(worded(&e, Lang::from_env(cli.lang)));
            ExitCode::from(2)
        }
    }
}

/// An error's one line in `lang`: the refusals of this file are worded
/// there already; the library's errors in the chain are worded from the
/// catalog (`shapetrace::error::in_lang`), and so is an unknown name (a
/// preset, a fault …); what the catalogs do not word stays English.
fn worded(e: &color_eyre::Report, lang: Lang) -> String {
    let mut line = format!("{e:#}");
    if lang == Lang::En {
        return line;
    }
    // The outermost worded error covers the ones it wraps.
    if let Some((en, there)) = e
        .chain()
        .find_map(|c| shapetrace::error::in_lang(c, lang).map(|t| (c.to_string(), t)))
        && !en.is_empty()
    {
        line = line.replace(&en, &there);
    }
    if let Some(u) = e.chain().find_map(unknown_name) {
        line = line.replace(&u.to_string(), &cli::usage::unknown_name(u, lang));
    }
    line
}

/// The unknown name `c` is or wraps: a transparent wrapper hides its
/// inner error from the chain (an overlay's unknown preset).
fn unknown_name<'a>(
    c: &'a (dyn std::error::Error + 'static),
) -> Option<&'a shapetrace::config::names::UnknownName> {
    use shapetrace::config::ResolveError;
    if let Some(u) = c.downcast_ref() {
        return Some(u);
    }
    if let Some(shapetrace::Error::Name(u) | shapetrace::Error::Resolve(ResolveError::Preset(u))) =
        c.downcast_ref::<shapetrace::Error>()
    {
        return Some(u);
    }
    match c.downcast_ref::<ResolveError>() {
        Some(ResolveError::Preset(u)) => Some(u),
        _ => None,
    }
}

/// The refusal `key` of the catalog, in `lang`, with its arguments.
fn refusal(lang: Lang, key: &str, args: &[(&str, String)]) -> color_eyre::Report {
    color_eyre::eyre::eyre!(say(lang, key, args))
}

/// The catalog's `key` in `lang` with the named arguments.
fn say(lang: Lang, key: &str, args: &[(&str, String)]) -> String {
    let why = args
        .iter()
        .fold(shapetrace::why::Why::new(key), |w, (k, v)| {
            w.arg(k, v.clone())
        });
    lang.why(&why)
}

/// color-eyre's report hook only. Its panic hook writes with `eprintln!`,
/// which panics when stderr cannot be written (`2>/dev/full`): a panic in
/// the panic hook aborts the process (exit 134). Rust's own panic hook
/// ignores a failed write.
fn install_hooks() {
    match color_eyre::config::HookBuilder::default().try_into_hooks() {
        Ok((_panic, eyre)) => {
            if let Err(e) = eyre.install() {
                out::say(e);
            }
        }
        Err(e) => out::say(e),
    }
}

/// Help and version print as clap prints them; any other parse error
/// becomes one line naming the argument, the value (escaped) and what is
/// allowed (see `cli::usage`).
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    out::say(cli::usage::line_in(e, cli::usage::lang_of_args()));
    ExitCode::from(2)
}

fn is_broken_pipe(e: &color_eyre::Report) -> bool {
    e.chain()
        .filter_map(|c| c.downcast_ref::<io::Error>())
        .any(|io| io.kind() == io::ErrorKind::BrokenPipe)
}

fn dispatch(cli: &Cli) -> Result<ExitCode> {
    // Every request a command makes, its own shape-only traces included,
    // runs under the command line's --max-memory.
    if let Some(bytes) = cli.model.max_memory {
        shapetrace::plan::limit::set_max_memory(bytes);
    }
    // Before any work: no output may be an input.
    cli::check_paths(cli).map_err(|e| color_eyre::eyre::eyre!(e))?;
    let lang = Lang::from_env(cli.lang);
    let (values, output) = match &cli.command {
        // The HTML handout draws the attention weights: it keeps the
        // values of the small tensors, as the stepper does.
        Some(Command::Trace(a)) => (
            a.values || (a.format == TraceFormat::Html && !cli.model.shape_only),
            a.output.is_some() || a.grads_out.is_some(),
        ),
        _ => (false, false),
    };
    if cli.watch && (cli.command.is_some() || cli.model.config.is_none()) {
        return Err(refusal(lang, "cli-refuse-watch-alone", &[]));
    }
    // A reload reads the model file alone: B, T and the weights a file
    // gave would not be checked against the edited model again.
    let m = &cli.model;
    if let (true, Some(flag)) = (
        cli.watch,
        [
            ("--weights", m.weights.is_some()),
            ("--input", m.input.is_some()),
            ("--tokens", m.tokens.is_some()),
        ]
        .iter()
        .find(|(_, set)| *set)
        .map(|(f, _)| *f),
    ) {
        return Err(refusal(
            lang,
            "cli-refuse-watch-flag",
            &[("flag", flag.to_string())],
        ));
    }
    if cli.compare.is_some() && (cli.command.is_some() || cli.watch) {
        return Err(refusal(lang, "cli-refuse-compare-stepper", &[]));
    }
    if let Some(Command::Compare(args)) = &cli.command {
        return compare(cli, args);
    }
    if let Some(c @ (Command::Completions(_) | Command::Man(_))) = &cli.command {
        if let Some(flag) = model_flag_given() {
            return Err(refusal(lang, "cli-refuse-package-flag", &[("flag", flag)]));
        }
        return packaging(c);
    }
    if let Some(Command::Faults(args)) = &cli.command {
        if let Some(flag) = model_flag_given() {
            return Err(refusal(lang, "cli-refuse-faults-flag", &[("flag", flag)]));
        }
        return faults(args.format, cli.lang);
    }
    // A log is judged as it was written: no model flag can change it.
    if let Some(Command::Check(cli::CheckArgs { log: Some(_), .. })) = &cli.command
        && let Some(flag) = model_flag_given()
    {
        return Err(refusal(
            lang,
            "cli-refuse-check-log-flag",
            &[("flag", flag)],
        ));
    }
    let one_forward = matches!(cli.command, Some(Command::Trace(_)));
    // params --weights FILE.gguf counts the model its metadata declares and
    // shows the bytes as stored, reading no tensor.
    let stored = match (&cli.command, &cli.model.weights) {
        (Some(Command::Params(_)), Some(w)) if shapetrace::weights::gguf::is_gguf(w) => {
            Some(shapetrace::weights::gguf::Gguf::open(w).map_err(shapetrace::Error::from)?)
        }
        _ => None,
    };
    let (cfg, req) = if stored.is_some() {
        cli.model.resolve_gguf_params()?
    } else {
        cli.model.resolve(values, output, one_forward)?
    };
    // check and probes judge the file's numbers: a GGUF file of a type no
    // numeric run reads is refused, naming it, not traced shapes only.
    if matches!(cli.command, Some(Command::Check(_) | Command::Probes(_)))
        && req.weights.is_none()
        && let Some(w) = &cli.model.weights
        && let Some(refusal) = shapetrace::weights::Checkpoint::open(w)?.unreadable()
    {
        return Err(
            shapetrace::Error::from(shapetrace::weights::WeightsError::from(refusal)).into(),
        );
    }
    // What a config.json or a checkpoint left unsaid, one line each, said
    // once the command has done its work (a refusal stays one line).
    let notes = req.notes.clone();
    let code = match &cli.command {
        None => {
            let launch = tui::Launch {
                quiz: cli.quiz,
                present: cli.present,
                autoplay: cli.autoplay,
                at: cli.at.clone(),
                // The Linux console's font has no box drawing or ◆.
                ascii: cli.ascii || std::env::var_os("TERM").is_some_and(|t| t == "linux"),
                lang: shapetrace::i18n::Lang::from_env(cli.lang),
            };
            // Refused now, not after the stepper opens: numbers that are
            // required (--weights, --input, --numeric) but over the limit.
            shapetrace::plan::plan(&cfg, &req)?;
            let given = tui::app::Given::new(&req, cli.model.given_label());
            let mut app = tui::app(cfg, launch, given, tui::theme::Theme::from_env())?;
            if let Some(right) = &cli.compare {
                let mut flags = cli.model.overlay();
                flags.preset = None;
                let (rc, note) = side(right, &flags).map_err(|e| {
                    color_eyre::eyre::eyre!(
                        "--compare '{}': {e}",
                        shapetrace::text::one_line(right)
                    )
                })?;
                app.open_split(right, &rc)?;
                if let Some(note) = note {
                    app.status = Some(format!(
                        "note: --compare {}",
                        shapetrace::text::one_line(&note)
                    ));
                }
            }
            if !req.notes.is_empty() && app.status.is_none() {
                app.status = Some(format!("note: {}", req.notes.join(" · ")));
            }
            let watch = cli
                .watch
                .then(|| cli.model.config.clone().map(|p| (p, cli.model.overlay())))
                .flatten();
            Ok(ended(tui::run(app, watch)?))
        }
        Some(Command::Trace(args)) => trace(&cfg, req, args, lang),
        Some(Command::Check(args)) if args.log.is_some() => check_log(args, lang),
        Some(Command::Check(args)) => check(&cfg, req, args.format, lang),
        Some(Command::Params(_)) if req.weights.is_some() || req.input.is_some() => {
            Err(refusal(lang, "cli-refuse-params-inputs", &[]))
        }
        Some(Command::Params(args)) => labs::params(&cfg, args, stored.as_ref(), lang),
        Some(Command::Ffn(args)) => labs::ffn(args, cli.model.set.seed, cli.lang),
        Some(Command::Norms(args)) => labs::norms(&args.x, cli.lang),
        Some(Command::Probes(args)) => labs::probes(&cfg, &req, args),
        Some(Command::View(args)) => view(args, cli.lang),
        Some(Command::Compare(args)) => compare(cli, args),
        Some(Command::Faults(args)) => faults(args.format, cli.lang),
        Some(c @ (Command::Completions(_) | Command::Man(_))) => packaging(c),
    }?;
    if cli.command.is_some() {
        for note in &notes {
            out::say(say(lang, "cli-note", &[("note", note.clone())]));
        }
    }
    Ok(code)
}

/// The first model flag on the command line (`--preset`, `--fault`, …),
/// before or after the subcommand, if any.
fn model_flag_given() -> Option<String> {
    use clap::parser::ValueSource;
    use clap::{Args, CommandFactory};
    let matches = Cli::command()
        .try_get_matches_from(std::env::args_os())
        .ok()?;
    let sub = matches.subcommand().map(|(_, m)| m);
    let model = cli::ModelArgs::augment_args(clap::Command::new("model"));
    model
        .get_arguments()
        .filter(|a| {
            let id = a.get_id().as_str();
            [Some(&matches), sub].into_iter().flatten().any(|m| {
                m.try_contains_id(id).unwrap_or(false)
                    && m.value_source(id) == Some(ValueSource::CommandLine)
            })
        })
        .find_map(|a| a.get_long().map(|l| format!("--{l}")))
}

/// Traces and checks `cfg` under `req`, with a progress bar on a terminal
/// and the plan's note, if any, on stderr.
fn run(
    cfg: &shapetrace::ModelConfig,
    mut req: Request,
) -> Result<(Run, Option<ndarray::ArrayD<f32>>)> {
    let (run, output, _) = run_with_grads(cfg, &mut req)?;
    Ok((run, output))
}

/// Every parameter's gradient by name.
type Grads = std::collections::HashMap<String, ndarray::ArrayD<f32>>;

/// As [`run`], with the gradients of a run with the backward.
fn run_with_grads(
    cfg: &shapetrace::ModelConfig,
    req: &mut Request,
) -> Result<(Run, Option<ndarray::ArrayD<f32>>, Option<Grads>)> {
    let (bar, hooks) = progress::Bar::new();
    req.hooks = hooks;
    let mut traced = shapetrace::trace_request(cfg, req)?;
    drop(bar);
    if let Some(note) = traced.plan.note() {
        out::say(note);
    }
    let grads = traced.grads.take();
    let (run, output) = traced.into_run(req);
    Ok((run, output, grads))
}

fn trace(
    cfg: &shapetrace::ModelConfig,
    req: Request,
    args: &TraceArgs,
    lang: Lang,
) -> Result<ExitCode> {
    if args.grads_out.is_some() && !cfg.backward {
        return Err(refusal(lang, "cli-refuse-grads-out", &[]));
    }
    if args.values
        && (req.mode == shapetrace::ModeChoice::ShapeOnly || args.format != TraceFormat::Json)
    {
        return Err(refusal(lang, "cli-refuse-values", &[]));
    }
    // Both outputs are made ready (a missing folder refused, temp files
    // made) before the run, so a long run is not wasted on a bad path.
    let npy = args
        .output
        .as_deref()
        .map(|p| out::prepare("--output", p))
        .transpose()?;
    let log = args
        .out
        .as_deref()
        .map(|p| out::prepare("--out", p))
        .transpose()?;
    let grads_out = args
        .grads_out
        .as_deref()
        .map(|p| out::prepare("--grads-out", p))
        .transpose()?;
    let saved_as = req.weights.clone();
    let mut req = req;
    let (run, output, grads) = run_with_grads(cfg, &mut req)?;
    if let Some(target) = grads_out {
        let Some(grads) = grads else {
            let how = if run.trace.failure.is_some() {
                "stopped"
            } else {
                "shapes"
            };
            return Err(refusal(
                lang,
                "cli-refuse-grads-out-run",
                &[("how", how.to_string())],
            ));
        };
        let file = saved_as
            .as_deref()
            .map(shapetrace::weights::Weights::saved_as);
        let tensors = shapetrace::weights::grads::as_file(&grads, file);
        let meta = std::collections::HashMap::from([(
            "loss".to_string(),
            run.trace
                .get("loss")
                .and_then(|e| e.stats)
                .map_or_else(String::new, |s| format!("{:e}", s.mean)),
        )]);
        let bytes = shapetrace::weights::grads::safetensors_bytes(&tensors, meta)
            .map_err(|e| color_eyre::eyre::eyre!("cannot lay out --grads-out: {e}"))?;
        target.write(|w| w.write_all(&bytes))?;
    }
    let array = match (npy, &output, &args.output) {
        (Some(_), None, Some(path)) => {
            return Err(refusal(
                lang,
                "cli-refuse-output-run",
                &[("path", shapetrace::text::shown_os(path.as_os_str()))],
            ));
        }
        (Some(target), Some(array), _) => Some((target, array)),
        _ => None,
    };
    if let Some((target, array)) = array {
        target.write(|w| {
            let mut w = io::BufWriter::new(w);
            shapetrace::npy::write(&mut w, array)?;
            w.flush()
        })?;
    }
    // A shape-only run's budget is counted from the trace at hand, not a
    // second trace of the model held beside it.
    let budget = (args.format == TraceFormat::Html)
        .then(|| match run.trace.mode {
            shapetrace::trace::Mode::ShapeOnly => {
                shapetrace::Budget::of_trace(cfg, &run.trace).ok()
            }
            shapetrace::trace::Mode::Numeric => shapetrace::Budget::of(cfg).ok(),
        })
        .flatten();
    let render = |out: &mut dyn Write| -> io::Result<()> {
        match args.format {
            // Streamed a card at a time: a deep model's page is never held whole.
            TraceFormat::Html => {
                let mut w = io::BufWriter::new(out);
                shapetrace::report::html::write_trace(
                    &mut w,
                    &run.trace,
                    &run.checks,
                    budget.as_ref(),
                )?;
                w.flush()
            }
            TraceFormat::Json => log::write(&mut io::BufWriter::new(out), &run.trace, &run.checks),
            TraceFormat::Table => {
                out.write_all(table::text_in(&run.trace, &run.checks, lang).as_bytes())
            }
            TraceFormat::Markdown => out.write_all(
                shapetrace::report::handout::markdown(&run.trace, &run.checks).as_bytes(),
            ),
        }
    };
    emit(log, render)?;
    Ok(ExitCode::SUCCESS)
}

/// Renders into `target` (`--out`, atomically), or to stdout.
fn emit(
    target: Option<out::Target>,
    render: impl Fn(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    match target {
        Some(target) => target.write(render),
        None => {
            let mut out = out::stdout();
            render(&mut out)?;
            Ok(out.flush()?)
        }
    }
}

/// One side of `compare` (and of `--compare`): a preset by name, else a
/// model file (`-` for standard input), with the model flags laid over it;
/// and, when the name is a preset's and also a file here, a note saying
/// the preset was taken and how to name the file.
fn side(
    name: &str,
    flags: &shapetrace::Overlay,
) -> Result<(shapetrace::ModelConfig, Option<String>)> {
    use shapetrace::config::preset;
    let is_preset = preset::PRESETS.iter().any(|(n, _)| *n == name);
    let path = std::path::Path::new(name);
    let base = if is_preset {
        shapetrace::Overlay {
            preset: Some(name.to_string()),
            ..shapetrace::Overlay::default()
        }
    } else if name == shapetrace::files::STDIN || path.exists() {
        shapetrace::Overlay::from_file(path).map_err(shapetrace::Error::from)?
    } else {
        return Err(refusal(
            Lang::from_env(None),
            "cli-refuse-side",
            &[("presets", preset::allowed())],
        ));
    };
    let note = (is_preset && path.exists())
        .then(|| format!("'{name}' is the preset {name}, not the file of that name here; for the file give ./{name}"));
    let cfg = base
        .then(flags)
        .resolve()
        .map_err(shapetrace::Error::from)?;
    Ok((cfg, note))
}

/// Whether a side of `compare` names a trace log rather than a model
/// file: a `.jsonl` file, or a regular file whose first line is a log's
/// header (`{"kind":"header",…}`). A pipe or device is a log only by its
/// name, as its first line cannot be read back.
fn is_log(name: &str) -> bool {
    use std::io::{BufRead, Read};
    let path = std::path::Path::new(name);
    if name == shapetrace::files::STDIN {
        return false;
    }
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"))
    {
        return true;
    }
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut first = Vec::new();
    let mut reader = io::BufReader::new(file.take(log::MAX_LINE_BYTES));
    if reader.read_until(b'\n', &mut first).is_err() {
        return false;
    }
    serde_json::from_slice::<serde_json::Value>(&first)
        .ok()
        .is_some_and(|v| v.get("kind").and_then(serde_json::Value::as_str) == Some("header"))
}

/// A side of `compare` as given: a model's name or a trace log read back.
enum Given {
    Model(String),
    Log(Box<log::Replay>),
}

/// A side of `compare` ready to trace: a model's config (with the note of
/// [`side`]) or a trace log.
enum Resolved {
    Model(Box<shapetrace::ModelConfig>, Option<String>),
    Log(Box<log::Replay>),
}

fn compare(cli: &Cli, args: &cli::CompareArgs) -> Result<ExitCode> {
    let m = &cli.model;
    let given = [
        ("--preset", m.preset.is_some()),
        ("--config", m.config.is_some()),
        ("--weights", m.weights.is_some()),
        ("--input", m.input.is_some()),
        ("--tokens", m.tokens.is_some()),
    ];
    if let Some((flag, _)) = given.iter().find(|(_, set)| *set) {
        return Err(refusal(
            Lang::from_env(cli.lang),
            "cli-refuse-compare-flag",
            &[("flag", (*flag).to_string())],
        ));
    }
    // compare traces shapes only: --numeric would change nothing
    // (--max-memory still bounds those traces).
    if m.numeric {
        return Err(refusal(
            Lang::from_env(cli.lang),
            "cli-refuse-compare-numeric",
            &[],
        ));
    }
    let one_line = shapetrace::text::one_line;
    // A trace log is read as written; a preset's name is the preset.
    let read = |which: &str, name: &str| -> Result<Given> {
        let preset = shapetrace::config::preset::PRESETS
            .iter()
            .any(|(n, _)| *n == name);
        if preset || !is_log(name) {
            return Ok(Given::Model(name.to_string()));
        }
        let replay = log::read_file_with(std::path::Path::new(name), log::Whys::Later)
            .map_err(|e| color_eyre::eyre::eyre!("compare {which} '{}': {e}", one_line(name)))?;
        Ok(Given::Log(Box::new(replay)))
    };
    let (lg, rg) = (read("LEFT", &args.left)?, read("RIGHT", &args.right)?);
    let logs: Vec<&log::Replay> = [&lg, &rg]
        .into_iter()
        .filter_map(|g| match g {
            Given::Log(r) => Some(r.as_ref()),
            Given::Model(_) => None,
        })
        .collect();
    if logs.len() == 2
        && let Some(flag) = model_flag_given()
    {
        return Err(refusal(
            Lang::from_env(cli.lang),
            "cli-refuse-compare-logs-flag",
            &[("flag", flag)],
        ));
    }
    if !logs.is_empty() && args.format == TraceFormat::Html {
        return Err(refusal(
            Lang::from_env(cli.lang),
            "cli-refuse-compare-html-log",
            &[],
        ));
    }
    let target = args
        .out
        .as_deref()
        .map(|p| out::prepare("--out", p))
        .transpose()?;
    let mut flags = m.overlay();
    flags.preset = None;
    // Beside a log, the model runs the log's B and T unless told.
    if let [log] = logs.as_slice() {
        let cfg = &log.trace.config;
        let mut taken = Vec::new();
        if flags.batch.is_none() {
            flags.batch = Some(cfg.batch);
            taken.push(format!("B={}", cfg.batch));
        }
        if flags.seq.is_none() {
            flags.seq = Some(cfg.seq);
            taken.push(format!("T={}", cfg.seq));
        }
        if !taken.is_empty() {
            let (model, log) = if matches!(lg, Given::Log(_)) {
                ("RIGHT", "LEFT")
            } else {
                ("LEFT", "RIGHT")
            };
            out::say(format_args!(
                "note: compare {model} traced at {}, as the log {log} ran (--batch and --seq set them)",
                taken.join(", ")
            ));
        }
    }
    // Both sides resolved (and their notes said) before either is traced.
    let resolve = |which: &str, g: Given| -> Result<Resolved> {
        match g {
            Given::Log(r) => Ok(Resolved::Log(r)),
            Given::Model(name) => {
                let (c, note) = side(&name, &flags).map_err(|e| {
                    color_eyre::eyre::eyre!("compare {which} '{}': {e}", one_line(&name))
                })?;
                Ok(Resolved::Model(Box::new(c), note))
            }
        }
    };
    let (lr, rr) = (resolve("LEFT", lg)?, resolve("RIGHT", rg)?);
    // A preset taken over a file of its name is said, not silent.
    for (which, r) in [("LEFT", &lr), ("RIGHT", &rr)] {
        if let Resolved::Model(_, Some(note)) = r {
            out::say(format_args!("note: compare {which} {}", one_line(note)));
        }
    }
    type Traced = (
        shapetrace::Trace,
        Option<shapetrace::Budget>,
        Option<String>,
    );
    let shapes = |r: Resolved| -> Result<Traced> {
        let (mut trace, budget, producer) = match r {
            Resolved::Log(r) => (r.trace, None, r.producer),
            Resolved::Model(c, _) => {
                let trace = shapetrace::trace_request(&c, &Request::shapes())?.trace;
                // Counted from the trace at hand: each side is traced once.
                let budget = shapetrace::Budget::of_trace(&c, &trace)?;
                (trace, Some(budget), None)
            }
        };
        // The HTML page draws each side's steps whole; the other formats
        // read only what a comparison keeps, so the left side is slimmed
        // before the right is traced.
        if args.format != TraceFormat::Html {
            shapetrace::compare::slim(&mut trace);
        }
        Ok((trace, budget, producer))
    };
    let (lt, lb, lp) = shapes(lr)?;
    let (rt, rb, rp) = shapes(rr)?;
    let by = shapetrace::compare::AlignBy::between(lp.as_deref(), rp.as_deref());
    let c = shapetrace::compare::Comparison::aligned(
        (&args.left, &lt, lb.as_ref()),
        (&args.right, &rt, rb.as_ref()),
        by,
    );
    let render = |out: &mut dyn Write| -> io::Result<()> {
        match args.format {
            TraceFormat::Json => {
                serde_json::to_writer(&mut *out, &c)?;
                writeln!(out)
            }
            TraceFormat::Table => out.write_all(shapetrace::report::compare::table(&c).as_bytes()),
            TraceFormat::Markdown => {
                out.write_all(shapetrace::report::compare::markdown(&c).as_bytes())
            }
            TraceFormat::Html => {
                out.write_all(shapetrace::report::html::compare(&c, &lt, &rt).as_bytes())
            }
        }
    };
    emit(target, render)?;
    Ok(ExitCode::SUCCESS)
}

fn check(
    cfg: &shapetrace::ModelConfig,
    req: Request,
    format: CheckFormat,
    lang: Lang,
) -> Result<ExitCode> {
    let (run, _) = run(cfg, req)?;
    // A fault that no check of this run could catch is refused, never "held".
    if let Some(fault) = cfg.fault
        && let Some((catchers, why)) = shapetrace::check::unjudged(fault, cfg, &run.checks)
    {
        let names: Vec<&str> = catchers.iter().map(|c| c.as_str()).collect();
        let line = lang.why(
            &shapetrace::why::Why::new("check-fault-unjudged")
                .arg("fault", fault.to_string())
                .arg("checks", names.join(", "))
                .arg("why", why),
        );
        out::say(line);
        return Ok(ExitCode::from(2));
    }
    let mut out = out::stdout();
    match format {
        CheckFormat::Text => {
            let head = shapetrace::report::headline_in(&run.checks, lang);
            let name = shapetrace::text::shown(&cfg.preset).to_string();
            let fault = match cfg.fault {
                Some(f) => say(lang, "cli-fault-some", &[("fault", f.to_string())]),
                None => lang.t("cli-fault-none"),
            };
            let line = [("name", name), ("fault", fault), ("headline", head)];
            writeln!(out, "{}", say(lang, "cli-check-line", &line))?;
            out.write_all(table::checks_text_in(&run.checks, lang).as_bytes())?;
        }
        CheckFormat::Json => {
            serde_json::to_writer(
                &mut out,
                &serde_json::json!({ "ok": run.ok(), "checks": run.checks }),
            )?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(if run.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `check --log FILE`: the log's checks (see `check::of_log`), printed as
/// `check` prints its own; exit 0 when all hold, 1 when any fails.
fn check_log(args: &cli::CheckArgs, lang: Lang) -> Result<ExitCode> {
    let Some(file) = &args.log else {
        return Ok(ExitCode::from(2));
    };
    // The checks judge shapes and verdicts, not whys.
    let replay = log::read_file_with(file, log::Whys::Later).map_err(shapetrace::Error::from)?;
    let checks = shapetrace::check::of_log(&replay);
    let ok = checks.iter().all(|c| c.ok);
    let mut out = out::stdout();
    match args.format {
        CheckFormat::Text => {
            let head = shapetrace::report::headline_in(&checks, lang);
            let who = shapetrace::text::shown(replay.producer.as_deref().unwrap_or("shapetrace"));
            let name = shapetrace::text::lossless(file.as_os_str());
            let line = [
                ("name", shapetrace::text::shown(&name).to_string()),
                ("fault", who.to_string()),
                ("headline", head),
            ];
            writeln!(out, "{}", say(lang, "cli-check-line", &line))?;
            if let Some(note) = replay.note() {
                writeln!(out, "{note}")?;
            }
            out.write_all(table::checks_text_in(&checks, lang).as_bytes())?;
        }
        CheckFormat::Json => {
            serde_json::to_writer(&mut out, &serde_json::json!({ "ok": ok, "checks": checks }))?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// 0 when the user quit; 128 + the signal's number when a signal ended it.
fn ended(how: tui::Ended) -> ExitCode {
    match how {
        tui::Ended::Quit => ExitCode::SUCCESS,
        tui::Ended::Signal(n) => ExitCode::from(u8::try_from(128 + n).unwrap_or(1)),
    }
}

/// Replays a saved trace log: the stepper, or a table with `--format`.
/// The verdicts are the ones the log's summary recorded; a log without
/// one opens with a note saying so.
/// `shapetrace completions SHELL` and `shapetrace man [COMMAND]` (see
/// `cli::package`): made whole in memory first, so a closed pipe ends the
/// write, never a panic. Any other command prints nothing here.
fn packaging(command: &Command) -> Result<ExitCode> {
    if let Some(bytes) = cli::package::of(command) {
        out::print(&String::from_utf8_lossy(&bytes?))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `shapetrace faults`: every teaching fault's row, in the chosen format.
fn faults(format: cli::FaultsFormat, lang: Option<shapetrace::i18n::Lang>) -> Result<ExitCode> {
    use shapetrace::report::faults;
    let lang = shapetrace::i18n::Lang::from_env(lang);
    let text = match format {
        cli::FaultsFormat::Table => faults::table(lang),
        cli::FaultsFormat::Json => faults::json(lang),
        cli::FaultsFormat::Markdown => faults::markdown(lang),
    };
    out::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn view(args: &cli::ViewArgs, lang: Option<shapetrace::i18n::Lang>) -> Result<ExitCode> {
    // A handout words another program's whys step by step, as it writes
    // them (a table shows none); the stepper keeps them all.
    let whys = match args.format {
        Some(_) => log::Whys::Later,
        None => log::Whys::Now,
    };
    let replay = log::read_file_with(&args.file, whys).map_err(shapetrace::Error::from)?;
    let shown = shapetrace::text::lossless(args.file.as_os_str());
    match args.format {
        Some(cli::ViewFormat::Html) => {
            // The page is written card by card, never held whole.
            let judged = shapetrace::check::as_logged(&replay);
            let mut out = io::BufWriter::with_capacity(1 << 16, out::stdout());
            shapetrace::report::html::write_trace_of_log(&mut out, &replay, &judged)?;
            out.flush()?;
        }
        Some(f) => {
            // As logged; what the log does not hold, judged from its events.
            let judged = shapetrace::check::as_logged(&replay);
            let checks = judged.as_slice();
            let mut text = replay.note().map_or_else(String::new, |n| match f {
                cli::ViewFormat::Table => format!("{n}\n\n"),
                cli::ViewFormat::Markdown => format!("> **{n}**\n\n"),
                // The page says the note itself, inside its body.
                cli::ViewFormat::Html => String::new(),
            });
            text.push_str(&match f {
                cli::ViewFormat::Table => {
                    table::text_in(&replay.trace, checks, Lang::from_env(lang))
                }
                cli::ViewFormat::Markdown => {
                    shapetrace::report::handout::markdown_of_log(&replay, checks)
                }
                cli::ViewFormat::Html => shapetrace::report::html::trace_of_log(&replay, checks),
            });
            out::print(&text)?;
        }
        None => {
            let app = tui::app::App::replay_in(
                replay,
                &shown,
                tui::theme::Theme::from_env(),
                shapetrace::i18n::Lang::from_env(lang),
            );
            return Ok(ended(tui::run(app, None)?));
        }
    }
    Ok(ExitCode::SUCCESS)
}
