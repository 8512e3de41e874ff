use super::{MAX_PIPED, open, open_seekable};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{Duration, Instant};

fn mkfifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
}

fn refusal(path: &Path) -> String {
    match open(path) {
        Ok(_) => panic!("{} was opened", path.display()),
        Err(e) => e.to_string(),
    }
}

/// A FIFO nobody writes is refused at once instead of blocking for ever.
#[test]
fn a_fifo_with_no_writer_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("f");
    mkfifo(&fifo);
    let start = Instant::now();
    let err = refusal(&fifo);
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(
        err,
        "it is a pipe with no writer; allowed: a regular file, a pipe, or - for standard input"
    );
}

/// A FIFO with a writer is read to its end, the bytes a quiet writer sends
/// later included.
#[test]
fn a_fifo_with_a_writer_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("f");
    mkfifo(&fifo);
    let path = fifo.clone();
    // The writer opens first (blocking until the reader comes), waits, writes.
    let writer = std::thread::spawn(move || {
        let mut w = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        std::thread::sleep(Duration::from_millis(50));
        w.write_all(b"hello ").unwrap();
        std::thread::sleep(Duration::from_millis(50));
        w.write_all(b"world").unwrap();
    });
    // Wait for the writer to hold the FIFO: then open must see it.
    let input = loop {
        match open(&fifo) {
            Ok(i) => break i,
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    assert_eq!(input.size(), None);
    assert_eq!(input.read_text(100).unwrap(), "hello world");
    writer.join().unwrap();
}

/// Folders and devices are named, not read.
#[test]
fn folders_and_devices_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    assert!(refusal(dir.path()).starts_with("it is a folder; allowed"));
    assert!(refusal(Path::new("/dev/zero")).starts_with("it is a device; allowed"));
}

/// A regular file has its size; past the cap, what is read is refused.
#[test]
fn a_file_has_its_size_and_the_cap_holds() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a");
    std::fs::write(&p, b"0123456789").unwrap();
    let input = open(&p).unwrap();
    assert_eq!(input.size(), Some(10));
    assert_eq!(input.read_capped(10).unwrap().len(), 10);
    let err = open(&p).unwrap().read_capped(9).unwrap_err().to_string();
    assert_eq!(err, "it holds more than 9 B; allowed: at most 9 B");
    let (mut src, size) = open_seekable(&p, MAX_PIPED).unwrap();
    assert_eq!(size, 10);
    src.seek(SeekFrom::Start(7)).unwrap();
    let mut s = String::new();
    src.read_to_string(&mut s).unwrap();
    assert_eq!(s, "789");
}
