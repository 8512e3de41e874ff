//! `--watch`: the model file is read again when it changes, by an editor
//! that writes in place or by one that writes a new file and renames it;
//! the stepper re-traces on the same step, and a broken edit keeps the
//! last good trace with its error in the status line.

mod common;
use shapetrace::Overlay;
use shapetrace::tui::msg::Msg;
use shapetrace::tui::watch;
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// The next config the watch sends, within a few seconds.
fn next(rx: &Receiver<Msg>) -> Result<shapetrace::ModelConfig, String> {
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(Msg::Reloaded(read)) => read,
        other => panic!("no reload: {other:?}"),
    }
}

#[test]
fn an_edit_in_place_or_by_rename_is_read_again_and_a_broken_one_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("model.toml");
    std::fs::write(&file, "d_ff = 128\n").unwrap();
    let flags = Overlay {
        seq: Some(3),
        ..Overlay::default()
    };
    let (tx, rx) = channel();
    let _watch = watch::start(&file, flags, tx).unwrap();
    // An editor that saves to a new file and renames it over the old one.
    let tmp = dir.path().join(".model.toml.swp");
    std::fs::write(&tmp, "d_ff = 512\n").unwrap();
    std::fs::rename(&tmp, &file).unwrap();
    let c = next(&rx).unwrap();
    assert_eq!((c.mlp.d_ff, c.seq), (512, 3), "the flags still apply");
    // An edit in place, broken.
    std::fs::write(&file, "d_ff = \"wide\"\n").unwrap();
    let e = next(&rx).unwrap_err();
    assert!(e.contains("model.toml:1"), "{e}");
    assert_eq!(e.lines().count(), 1);
    // Another file in the folder is not the model.
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    std::fs::write(&file, "heads = 2\n").unwrap();
    assert_eq!(next(&rx).unwrap().attention.heads, 2);
}

#[test]
fn the_stepper_retraces_on_the_same_step_and_keeps_the_last_good_trace() {
    let mut lp = common::stepper(shapetrace::ModelConfig::default(), Default::default());
    while lp.app.path(lp.app.cursor) != Some("block1.mlp.up") {
        lp.app.update(shapetrace::tui::action::Action::Next);
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("model.toml");
    std::fs::write(&file, "d_ff = 128\n").unwrap();
    let tx = lp.sender();
    tx.send(Msg::Reloaded(watch::read(&file, &Overlay::default())))
        .unwrap();
    common::settle(&mut lp);
    let here = lp.app.path(lp.app.cursor).unwrap().to_string();
    assert_eq!(here, "block1.mlp.up");
    assert_eq!(lp.app.run.trace.get(&here).unwrap().shape, [2, 4, 128]);
    let status = lp.app.status.clone().unwrap_or_default();
    assert!(status.contains("model file"), "{status}");
    std::fs::write(&file, "d_ff = -1\n").unwrap();
    tx.send(Msg::Reloaded(watch::read(&file, &Overlay::default())))
        .unwrap();
    common::settle(&mut lp);
    let status = lp.app.status.clone().unwrap_or_default();
    assert!(status.contains("the last good trace stays"), "{status}");
    assert!(status.contains("model.toml"), "{status}");
    assert_eq!(lp.app.run.trace.get(&here).unwrap().shape, [2, 4, 128]);
    assert!(common::frame(&lp).contains("the last good trace stays"));
}

#[test]
fn watch_needs_a_model_file_and_the_stepper() {
    for (args, want) in [
        (
            &["--watch"][..],
            "--watch re-traces the stepper's model file",
        ),
        (
            &["trace", "--watch", "--config", "x.toml"][..],
            "unexpected argument '--watch'",
        ),
    ] {
        let (code, _, err) = common::cli(args);
        assert_eq!(code, Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(want), "{err}");
    }
}
