//! The budget and lesson subcommands: `params`, `ffn`, `norms` and `probes`.

use crate::cli::{ParamsArgs, ParamsFormat, ProbeKind, ProbesArgs};
use color_eyre::eyre::{Result, bail};
use shapetrace::budget::{Budget, table};
use shapetrace::check::influence::{Kind, Subject, influence, opening, tokens};
use shapetrace::check::probe::verdict;
use shapetrace::lesson::{by_hand::FfnByHand, norms::NormCompare, parse_vector};
use std::io::Write;
use std::process::ExitCode;

/// Parameters, FLOPs and bytes of `cfg`, as a table or one JSON object.
pub fn params(cfg: &shapetrace::ModelConfig, args: &ParamsArgs) -> Result<ExitCode> {
    let dtype = args.bytes_dtype.unwrap_or(cfg.dtype.into());
    let budget = Budget::with_bytes(cfg, dtype)?;
    let mut out = crate::out::stdout();
    match args.format {
        ParamsFormat::Table => out.write_all(table::text(&budget).as_bytes())?,
        ParamsFormat::Json => {
            serde_json::to_writer(&mut out, &budget)?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The lesson's FFN by hand on `x`.
pub fn ffn(x: &str) -> Result<ExitCode> {
    let f = FfnByHand::lesson(&parse_vector(x)?)?;
    crate::out::print(&f.text())?;
    Ok(ExitCode::SUCCESS)
}

/// LayerNorm against RMSNorm on `x`.
pub fn norms(x: &str) -> Result<ExitCode> {
    let n = NormCompare::new(&parse_vector(x)?)?;
    crate::out::print(&n.text())?;
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
    crate::out::print(&view.text())?;
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
