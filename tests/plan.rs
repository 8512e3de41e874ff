//! Numbers or shapes under a memory limit, progress, and cancelling a run
//! from another thread.

use shapetrace::plan::{Hooks, ModeChoice, Progress, Request, plan};
use shapetrace::trace::Mode;
use shapetrace::{Error, ModelConfig};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};

fn preset(name: &str) -> ModelConfig {
    shapetrace::config::preset::by_name(name).unwrap()
}

fn with(mode: ModeChoice, max: Option<u128>) -> Request {
    Request {
        mode,
        max_memory: max,
        ..Request::default()
    }
}

#[test]
fn over_the_limit_a_run_switches_to_shapes_with_a_note_naming_both_sizes() {
    let p = plan(&preset("gpt2-xl"), &Request::default()).unwrap();
    assert_eq!((p.mode, p.switched), (Mode::ShapeOnly, true));
    let note = p.note().unwrap();
    assert!(
        note.contains("8.8 GiB") && note.contains("4.0 GiB"),
        "{note}"
    );
    // Under a higher limit the same model plans numbers.
    let p = plan(&preset("gpt2-xl"), &with(ModeChoice::Auto, Some(16 << 30))).unwrap();
    assert_eq!((p.mode, p.switched, p.note()), (Mode::Numeric, false, None));
    // The lesson is numeric by default, shapes only under a tiny limit.
    let lesson = ModelConfig::default();
    assert_eq!(
        plan(&lesson, &Request::default()).unwrap().mode,
        Mode::Numeric
    );
    let t = shapetrace::trace_request(&lesson, &with(ModeChoice::Auto, Some(1024))).unwrap();
    assert_eq!((t.trace.mode, t.plan.switched), (Mode::ShapeOnly, true));
    assert!(t.trace.events.iter().all(|e| e.stats.is_none()));
}

#[test]
fn numeric_insists_and_is_refused_over_the_limit() {
    let e = plan(&preset("gpt2-xl"), &with(ModeChoice::Numeric, None))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("(--numeric)") && e.contains("8.8 GiB") && e.contains("4.0 GiB"),
        "{e}"
    );
    let lesson = ModelConfig::default();
    let p = plan(&lesson, &with(ModeChoice::Numeric, None)).unwrap();
    assert_eq!(p.mode, Mode::Numeric);
    // Shapes only when asked is not a switch, and has no note.
    let p = plan(&preset("gpt2-xl"), &with(ModeChoice::ShapeOnly, None)).unwrap();
    assert_eq!(
        (p.mode, p.switched, p.note()),
        (Mode::ShapeOnly, false, None)
    );
}

fn recording() -> (Hooks, Arc<Mutex<Vec<Progress>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let hooks = Hooks {
        progress: Some(Arc::new(move |p| s.lock().unwrap().push(p))),
        cancel: None,
    };
    (hooks, seen)
}

#[test]
fn progress_counts_every_event_up_to_the_expected_number() {
    let (hooks, seen) = recording();
    let req = Request {
        hooks,
        ..Request::default()
    };
    let t = shapetrace::trace_request(&ModelConfig::default(), &req).unwrap();
    let seen = seen.lock().unwrap();
    let n = t.trace.events.len();
    assert_eq!(seen.len(), n);
    assert!(
        seen.iter()
            .enumerate()
            .all(|(i, p)| p.done == i + 1 && p.expected == n)
    );
}

#[test]
fn a_cancel_flag_set_from_another_thread_stops_the_run() {
    let cancel = Arc::new(AtomicBool::new(false));
    let (told, heard) = mpsc::channel::<()>();
    let (ack, acked) = mpsc::channel::<()>();
    let acked = Mutex::new(acked);
    let progress = Arc::new(move |p: Progress| {
        if p.done == 1 {
            told.send(()).unwrap();
            acked.lock().unwrap().recv().unwrap(); // wait until the flag is set
        }
    });
    let req = Request {
        hooks: Hooks {
            progress: Some(progress),
            cancel: Some(cancel.clone()),
        },
        ..Request::default()
    };
    let worker = std::thread::spawn(move || {
        shapetrace::trace_request(&ModelConfig::default(), &req).map(|t| t.trace.events.len())
    });
    heard.recv().unwrap();
    cancel.store(true, Ordering::Relaxed);
    ack.send(()).unwrap();
    assert!(matches!(worker.join().unwrap(), Err(Error::Cancelled)));
    // Without the flag the same run completes.
    let (hooks, _) = recording();
    let req = Request {
        hooks,
        ..Request::default()
    };
    assert!(shapetrace::trace_request(&ModelConfig::default(), &req).is_ok());
}
