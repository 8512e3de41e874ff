//! Judge a trace log from Rust, as `shapetrace check --log FILE` does:
//! read the log (ours, `trace --format json`, or another program's, e.g.
//! `scripts/shapetrace_export.py`), then run the checks on its events.
//!
//! ```sh
//! cargo run --example judge_log -- trace.jsonl
//! cargo run --example judge_log            # writes and judges the lesson model's log
//! ```

use shapetrace::trace::log;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = match std::env::args_os().nth(1) {
        Some(p) => std::path::PathBuf::from(p),
        None => {
            // No log given: the lesson model's, with a missing mask.
            let cfg = shapetrace::ModelConfig {
                fault: Some(shapetrace::config::Fault::NoCausalMask),
                ..shapetrace::ModelConfig::default()
            };
            let run = shapetrace::run(&cfg)?;
            let path = std::env::temp_dir().join("shapetrace-judge-log.jsonl");
            let mut file = std::io::BufWriter::new(std::fs::File::create(&path)?);
            log::write(&mut file, &run.trace, &run.checks)?;
            drop(file);
            path
        }
    };
    // The log as written; its own verdicts are not trusted, its events are judged.
    let replay = log::read_file(&path)?;
    let checks = shapetrace::check::of_log(&replay);
    for c in &checks {
        let mark = shapetrace::report::table::verdict(c.status);
        println!("{mark} {}  {}", c.name.as_str(), c.detail);
    }
    let ok = checks.iter().all(|c| c.ok);
    println!("{}", if ok { "all hold" } else { "a check failed" });
    Ok(())
}
