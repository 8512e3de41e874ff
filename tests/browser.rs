//! The HTML handout in a real browser: headless Chromium renders the
//! lesson page at a desktop (1280×900) and a phone (375×812) window,
//! screenshots it (the PNG's size is the window's), dumps the DOM (the
//! steps and the SVG heatmaps are there), checks nothing on the narrow
//! page is wider than the viewport, and proves the page loads nothing
//! from outside the file: Chromium's only proxy is a listener this test
//! owns, which sees no connection for the page and one for a copy with an
//! outside image and no Content-Security-Policy. Printed to PDF, every
//! page is A4 (without the `@page` rule, US Letter).
//!
//! Chromium is found as `$SHAPETRACE_CHROMIUM`, else `chromium`,
//! `chromium-browser`, `google-chrome` or `google-chrome-stable` on PATH.
//! Without one the tests print a skip line, unless
//! `SHAPETRACE_BROWSER=required` (CI), where they fail.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[path = "common/mod.rs"]
mod common;

/// How long one Chromium run may take before it is killed.
const TIMEOUT: Duration = Duration::from_secs(60);

const DESKTOP: (u32, u32) = (1280, 900);
const NARROW: (u32, u32) = (375, 812);

/// Chromium, or `None` (and a skip line) when there is none and it is not
/// required.
fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("SHAPETRACE_CHROMIUM")
        .map(PathBuf::from)
        .filter(|p| p.is_file())
        .or_else(|| {
            let path = std::env::var_os("PATH")?;
            [
                "chromium",
                "chromium-browser",
                "google-chrome",
                "google-chrome-stable",
            ]
            .iter()
            .flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n)))
            .find(|p| p.is_file())
        });
    if found.is_none() {
        let required = std::env::var("SHAPETRACE_BROWSER").is_ok_and(|v| v == "required");
        assert!(
            !required,
            "SHAPETRACE_BROWSER=required but no Chromium was found: set SHAPETRACE_CHROMIUM, or install chromium (apt-get install chromium)"
        );
        // Straight to stderr: the test harness captures eprintln!, and
        // a skip should be seen in a plain `cargo test`.
        let _ = writeln!(
            std::io::stderr(),
            "skip: no Chromium found (chromium, chromium-browser, google-chrome, $SHAPETRACE_CHROMIUM); SHAPETRACE_BROWSER=required makes this a failure"
        );
    }
    found
}

/// A proxy that answers nothing and counts who connects to it.
struct Listener {
    port: u16,
    seen: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Listener {
    fn new() -> Self {
        let l = TcpListener::bind("127.0.0.1:0").expect("a local port");
        l.set_nonblocking(true).unwrap();
        let port = l.local_addr().unwrap().port();
        let (seen, stop) = (
            Arc::new(AtomicUsize::new(0)),
            Arc::new(AtomicBool::new(false)),
        );
        let (s, st) = (seen.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !st.load(Ordering::SeqCst) {
                match l.accept() {
                    Ok((conn, _)) => {
                        s.fetch_add(1, Ordering::SeqCst);
                        drop(conn);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Self {
            port,
            seen,
            stop,
            thread: Some(thread),
        }
    }

    /// Connections seen so far.
    fn seen(&self) -> usize {
        self.seen.load(Ordering::SeqCst)
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Runs Chromium headless on `page` with `extra` flags, every request
/// sent to `proxy`: its stdout. Killed after [`TIMEOUT`].
fn run(chrome: &Path, page: &Path, size: (u32, u32), proxy: &Listener, extra: &[String]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(chrome);
    cmd.args([
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-extensions",
        "--disable-breakpad",
        "--disable-crash-reporter",
        "--disable-domain-reliability",
        "--disable-client-side-phishing-detection",
        "--metrics-recording-only",
        "--no-pings",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        "--proxy-bypass-list=<-loopback>",
        // Chromium's own requests at start, which the flags above leave
        // on (found empirically with a listener that logs them): the
        // network clock, the component updater (update.googleapis.com)
        // and the account list (accounts.google.com). The last two are
        // pointed where nothing answers; were they asked, the proxy
        // would still count them.
        "--disable-features=NetworkTimeServiceQuerying",
        "--component-updater=url-source=file:///nonexistent/",
        "--gaia-url=http://127.0.0.1:1/",
    ])
    .arg(format!("--proxy-server=http://127.0.0.1:{}", proxy.port))
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .arg(format!("--window-size={},{}", size.0, size.1))
    .args(extra)
    .arg(format!("file://{}", page.display()))
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::null());
    let mut child = cmd.spawn().expect("Chromium starts");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "Chromium did not finish within {TIMEOUT:?} on {}",
                page.display()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    reader.join().unwrap()
}

/// The DOM after load.
fn dom(chrome: &Path, page: &Path, size: (u32, u32), proxy: &Listener) -> String {
    run(
        chrome,
        page,
        size,
        proxy,
        &["--dump-dom".into(), "--virtual-time-budget=2000".into()],
    )
}

/// A PNG's width and height from its IHDR chunk.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let sig = b"\x89PNG\r\n\x1a\n";
    if bytes.len() < 24 || &bytes[..8] != sig || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    Some((be(&bytes[16..20]), be(&bytes[20..24])))
}

/// The lesson page written to `dir`, with its trace.
fn lesson_page(dir: &Path) -> (PathBuf, String) {
    let (code, html, err) = common::cli(&["trace", "--format", "html"]);
    assert_eq!(code, Some(0), "{err}");
    let p = dir.join("trace.html");
    std::fs::write(&p, &html).unwrap();
    (p, html)
}

#[test]
fn png_sizes_are_read_from_the_header() {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend_from_slice(&375u32.to_be_bytes());
    png.extend_from_slice(&812u32.to_be_bytes());
    assert_eq!(png_size(&png), Some((375, 812)));
    // Not a PNG, or cut short.
    assert_eq!(png_size(b"GIF89a...................."), None);
    assert_eq!(png_size(&png[..20]), None);
}

#[test]
fn the_page_renders_at_desktop_and_phone_sizes() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (page, _) = lesson_page(dir.path());
    let trace = shapetrace::trace(&shapetrace::ModelConfig::default()).unwrap();
    let proxy = Listener::new();
    for (w, h) in [DESKTOP, NARROW] {
        let shot = dir.path().join(format!("shot-{w}.png"));
        run(
            &chrome,
            &page,
            (w, h),
            &proxy,
            &[format!("--screenshot={}", shot.display())],
        );
        let bytes =
            std::fs::read(&shot).unwrap_or_else(|e| panic!("no screenshot at {w}×{h}: {e}"));
        assert_eq!(
            png_size(&bytes),
            Some((w, h)),
            "the screenshot is the window"
        );
        let d = dom(&chrome, &page, (w, h), &proxy);
        for e in &trace.events {
            assert!(d.contains(&e.path), "{w}×{h}: the DOM lacks {}", e.path);
        }
        assert!(
            d.matches("<svg class=\"heatmap\"").count() >= 4,
            "{w}×{h}: heatmaps"
        );
        assert!(d.contains("╳"), "{w}×{h}: masked cells");
    }
    assert_eq!(proxy.seen(), 0, "the page made a request");
}

/// `html` with a script that, after layout, writes how many elements
/// reach past the viewport's right edge (and whether the page scrolls
/// sideways) into the DOM. The CSP meta goes, so the script may run.
fn with_width_probe(html: &str) -> String {
    let probe = r#"<script>
window.addEventListener('load', () => {
  const w = document.documentElement.clientWidth;
  const wide = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > w + 1) wide.push(el.tagName + ':' + Math.round(r.right));
  }
  const p = document.createElement('pre');
  p.id = 'probe';
  p.textContent = 'WIDE ' + wide.length + ' SCROLL ' + (document.documentElement.scrollWidth > w) + ' ' + wide.slice(0, 5).join(',');
  document.body.appendChild(p);
});
</script>"#;
    without_csp(html).replace("</body>", &format!("{probe}</body>"))
}

fn without_csp(html: &str) -> String {
    let at = html
        .find("<meta http-equiv=\"Content-Security-Policy\"")
        .expect("a CSP meta");
    let end = at + html[at..].find('>').unwrap() + 1;
    format!("{}{}", &html[..at], &html[end..])
}

/// The probe's line from a DOM.
fn probe(dom: &str) -> String {
    let at = dom.find("id=\"probe\">").expect("the probe ran") + "id=\"probe\">".len();
    dom[at..].lines().next().unwrap().to_string()
}

#[test]
fn nothing_on_the_narrow_page_is_wider_than_the_screen() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (_, html) = lesson_page(dir.path());
    let proxy = Listener::new();
    let p = dir.path().join("probe.html");
    std::fs::write(&p, with_width_probe(&html)).unwrap();
    let line = probe(&dom(&chrome, &p, NARROW, &proxy));
    assert!(line.starts_with("WIDE 0 SCROLL false"), "{line}");
    // A page with one element wider than the screen is caught.
    let wide = html.replace("</h1>", "</h1><div style=\"width:2000px\">wide</div>");
    std::fs::write(&p, with_width_probe(&wide)).unwrap();
    let line = probe(&dom(&chrome, &p, NARROW, &proxy));
    assert!(!line.starts_with("WIDE 0"), "{line}");
}

#[test]
fn the_page_loads_nothing_from_outside_and_a_page_that_does_is_seen() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (page, html) = lesson_page(dir.path());
    let clean = Listener::new();
    let d = dom(&chrome, &page, DESKTOP, &clean);
    assert!(d.contains("block1.attn.weights"), "the page rendered");
    assert_eq!(clean.seen(), 0, "the handout made a request");
    // An outside image without the CSP reaches the proxy.
    let leak = without_csp(&html).replace(
        "</h1>",
        "</h1><img src=\"http://example.invalid/x.png\" alt=\"outside\">",
    );
    let p = dir.path().join("leak.html");
    std::fs::write(&p, leak).unwrap();
    let leaky = Listener::new();
    dom(&chrome, &p, DESKTOP, &leaky);
    assert!(
        leaky.seen() > 0,
        "the proxy saw no request for the outside image"
    );
    // The same image with the CSP in place is refused by the browser.
    let guarded = html.replace(
        "</h1>",
        "</h1><img src=\"http://example.invalid/x.png\" alt=\"outside\">",
    );
    std::fs::write(&p, guarded).unwrap();
    let refused = Listener::new();
    dom(&chrome, &p, DESKTOP, &refused);
    assert_eq!(refused.seen(), 0, "the CSP let an outside image load");
}

/// The page sizes in points of a PDF Chromium printed, from its
/// `/MediaBox [0 0 W H]` entries.
fn media_boxes(pdf: &[u8]) -> Vec<(f64, f64)> {
    let text = String::from_utf8_lossy(pdf);
    text.match_indices("/MediaBox [")
        .filter_map(|(at, key)| {
            let rest = &text[at + key.len()..];
            let nums: Vec<f64> = rest[..rest.find(']')?]
                .split_whitespace()
                .filter_map(|n| n.parse().ok())
                .collect();
            (nums.len() == 4).then(|| (nums[2] - nums[0], nums[3] - nums[1]))
        })
        .collect()
}

#[test]
fn the_page_prints_on_a4() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (page, html) = lesson_page(dir.path());
    let proxy = Listener::new();
    let print = |page: &Path, name: &str| {
        let pdf = dir.path().join(name);
        run(
            &chrome,
            page,
            DESKTOP,
            &proxy,
            &[
                format!("--print-to-pdf={}", pdf.display()),
                "--no-pdf-header-footer".into(),
            ],
        );
        media_boxes(&std::fs::read(&pdf).expect("a PDF"))
    };
    // A4 is 210 × 297 mm: 595.3 × 841.9 points.
    let a4 = |(w, h): (f64, f64)| (w - 595.3).abs() < 1.0 && (h - 841.9).abs() < 1.0;
    let pages = print(&page, "a4.pdf");
    assert!(pages.len() > 1, "{pages:?}");
    assert!(pages.iter().all(|p| a4(*p)), "{pages:?}");
    // Without the @page rule Chromium prints on its default, US Letter.
    let letter = dir.path().join("letter.html");
    std::fs::write(&letter, html.replace("@page { size: A4;", "@page {")).unwrap();
    let pages = print(&letter, "letter.pdf");
    assert!(
        !pages.is_empty() && pages.iter().all(|p| !a4(*p)),
        "{pages:?}"
    );
    assert_eq!(proxy.seen(), 0);
}
