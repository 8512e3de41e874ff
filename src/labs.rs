//! The budget and lesson subcommands: `params`, `ffn`, `norms` and `probes`.

use crate::cli::{FfnArgs, FfnMistake, ParamsArgs, ParamsFormat, ProbeKind, ProbesArgs};
use color_eyre::eyre::{Result, bail};
use shapetrace::budget::{Budget, table};
use shapetrace::check::influence::{Kind, Subject, influence, opening, tokens};
use shapetrace::check::probe::verdict;
use shapetrace::i18n::Lang;
use shapetrace::lesson::by_hand::Mistake;
use shapetrace::lesson::ffn_lab::{Spec, sheet_in};
use shapetrace::lesson::matrix::parse_matrix;
use shapetrace::lesson::{norms::NormCompare, parse_vector};
use std::io::Write;
use std::process::ExitCode;

/// Parameters, FLOPs and bytes of `cfg`, as a table or one JSON object;
/// with a GGUF file, also its bytes as stored per ggml type.
pub fn params(
    cfg: &shapetrace::ModelConfig,
    args: &ParamsArgs,
    stored: Option<&shapetrace::weights::gguf::Gguf>,
    lang: shapetrace::i18n::Lang,
) -> Result<ExitCode> {
    let dtype = args.bytes_dtype.unwrap_or(cfg.dtype.into());
    let budget = Budget::with_bytes(cfg, dtype)?;
    let mut out = crate::out::stdout();
    let training = args.training.then(|| {
        use shapetrace::budget::training::{Optimizer, Recompute, training};
        let optimizer = match args.optimizer {
            crate::cli::OptimizerArg::Adam => Optimizer::Adam,
            crate::cli::OptimizerArg::Sgd => Optimizer::Sgd,
        };
        let recompute = match args.recompute {
            crate::cli::RecomputeArg::None => Recompute::None,
            crate::cli::RecomputeArg::Full => Recompute::Full,
        };
        training(cfg, optimizer, recompute)
    });
    match args.format {
        ParamsFormat::Table => {
            out.write_all(table::text_in(&budget, lang).as_bytes())?;
            if let Some(t) = &training {
                out.write_all(shapetrace::budget::training::text(t).as_bytes())?;
            }
            if let Some(g) = stored {
                out.write_all(stored_text(g).as_bytes())?;
            }
        }
        ParamsFormat::Json => {
            let mut json = serde_json::to_value(&budget)?;
            // --training's choices replace the default ledger of a backward run.
            if let (Some(t), Some(map)) = (&training, json.as_object_mut()) {
                map.insert("training".into(), serde_json::to_value(t)?);
            }
            if let (Some(g), Some(map)) = (stored, json.as_object_mut()) {
                map.insert("stored".into(), stored_json(g));
            }
            serde_json::to_writer(&mut out, &json)?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// A GGUF file's bytes as stored, a row per ggml type:
/// `Q8_0: N weights in M bytes (34 bytes per 32 weights)`.
fn stored_text(g: &shapetrace::weights::gguf::Gguf) -> String {
    use std::fmt::Write as _;
    let mut out = format!(
        "\nStored in {} (GGUF v{}, bytes per ggml type)\n",
        shapetrace::text::shown(&g.path),
        g.parsed.version
    );
    let (mut weights, mut bytes) = (0u64, 0u64);
    for (ty, n, b) in g.storage() {
        let per = if ty.block() == 1 {
            format!("{} bytes per weight", ty.block_bytes())
        } else {
            format!("{} bytes per {} weights", ty.block_bytes(), ty.block())
        };
        let _ = writeln!(out, "  {}: {n} weights in {b} bytes ({per})", ty.name());
        weights = weights.saturating_add(n);
        bytes = bytes.saturating_add(b);
    }
    let _ = writeln!(out, "  total: {weights} weights in {bytes} bytes");
    out
}

/// [`stored_text`] as JSON: the file, its version and a row per type.
fn stored_json(g: &shapetrace::weights::gguf::Gguf) -> serde_json::Value {
    let types: Vec<serde_json::Value> = g
        .storage()
        .into_iter()
        .map(|(ty, n, b)| {
            serde_json::json!({
                "type": ty.name(),
                "weights": n,
                "bytes": b,
                "block_weights": ty.block(),
                "block_bytes": ty.block_bytes(),
            })
        })
        .collect();
    serde_json::json!({ "file": g.path, "version": g.parsed.version, "types": types })
}

/// Lesson 5.3's FFN lab: the token by hand, the counts and the probe, in
/// the language `--lang` or the locale names; `seed` is the global
/// `--seed`, if given.
pub fn ffn(args: &FfnArgs, seed: Option<u64>, lang: Option<Lang>) -> Result<ExitCode> {
    let matrix =
        |name: &str, m: &Option<String>| m.as_deref().map(|s| parse_matrix(name, s)).transpose();
    let spec = Spec {
        x: args.x.as_deref().map(parse_vector).transpose()?,
        d: args.d,
        f: args.f,
        gated: args.gated,
        seed,
        w1: matrix("W1", &args.w1)?,
        w2: matrix("W2", &args.w2)?,
        wg: matrix("Wg", &args.wg)?,
        wu: matrix("Wu", &args.wu)?,
        wd: matrix("Wd", &args.wd)?,
        mistake: match args.mistake {
            FfnMistake::None => Mistake::None,
            FfnMistake::Rows => Mistake::Rows,
            FfnMistake::ReluAfterW2 => Mistake::ReluAfterW2,
        },
    };
    crate::out::print(&sheet_in(&spec, Lang::from_env(lang))?)?;
    Ok(ExitCode::SUCCESS)
}

/// LayerNorm against RMSNorm on `x`, in the language `--lang` or the
/// locale names.
pub fn norms(x: &str, lang: Option<Lang>) -> Result<ExitCode> {
    let n = NormCompare::new(&parse_vector(x)?)?;
    crate::out::print(&n.text_in(Lang::from_env(lang)))?;
    Ok(ExitCode::SUCCESS)
}

/// Which rows change when one token moves; exits 1 when the probe fails.
pub fn probes(
    cfg: &shapetrace::ModelConfig,
    req: &shapetrace::Request,
    args: &ProbesArgs,
) -> Result<ExitCode> {
    let kind = match args.kind {
        ProbeKind::Causality => Kind::Causality,
        ProbeKind::Positionwise => Kind::Positionwise,
    };
    // One token when asked; else every token `check` moves, judged as it
    // judges them, so the exit code is `check`'s verdict.
    let moved = match args.token {
        Some(token) if token >= cfg.seq => bail!(
            "--token {token} is out of range; allowed: 0..={} (seq {})",
            cfg.seq - 1,
            cfg.seq
        ),
        Some(token) => vec![token],
        None => tokens(cfg.seq),
    };
    let runs = match influence(Subject::of(cfg, req), kind, &moved) {
        Ok(runs) => runs,
        Err(e) => bail!("cannot probe this model: {e}"),
    };
    // The first token that fails, else the middle one (or the one asked).
    let failed = verdict(&runs).is_err();
    let Some(view) = opening(runs, cfg.seq) else {
        bail!(
            "cannot probe this model: no token to move (seq {})",
            cfg.seq
        )
    };
    // A split model: the probes move tokens through the model the
    // devices compute together, on one device; `shard` holds them to it.
    let d = cfg.devices;
    let split = if d.many() {
        format!(
            "split over {} devices: probed on the one-device model they compute together (check's shard holds them to it)\n",
            d.count()
        )
    } else {
        String::new()
    };
    crate::out::print(&format!("{split}{}", view.text()))?;
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
