//! The book holds together: every chapter `docs/src/SUMMARY.md` lists
//! exists and every chapter file is listed; every relative link and
//! include in the README and the book points at a file that exists; and
//! no shapetrace command is shown where `tests/book.rs` does not run it.
//! Each rule is also shown failing on an edited copy of the text.

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The Markdown files of the book, `docs/src/*.md`, SUMMARY.md included.
fn chapters_on_disk() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join("docs/src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    out.sort();
    out
}

/// `text` without its fenced code blocks and inline code spans, where a
/// `](` is code, not a link.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(if t.starts_with('`') { "```" } else { "~~~" });
            continue;
        }
        // Drop `code spans`: every other piece between backticks.
        for (i, piece) in line.split('`').enumerate() {
            if i % 2 == 0 {
                out.push_str(piece);
            }
        }
        out.push('\n');
    }
    out
}

/// The targets of the Markdown links `[..](target)` and mdBook includes
/// `{{#include target}}` in `text`, outside code.
fn targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let prose = prose(text);
    for piece in prose.split("](").skip(1) {
        if let Some(end) = piece.find(')') {
            let t = piece[..end].split_whitespace().next().unwrap_or("");
            out.push(t.to_string());
        }
    }
    for piece in text.split("{{#include ").skip(1) {
        if let Some(end) = piece.find("}}") {
            // `file:anchor` or `file:10:20` selects part of a file.
            let t = piece[..end].trim().split(':').next().unwrap_or("");
            out.push(t.to_string());
        }
    }
    out
}

/// The links in `text` (a file in `dir`) whose relative target does not
/// exist; web links and links within the page are not files.
fn broken_links(text: &str, dir: &Path) -> Vec<String> {
    targets(text)
        .into_iter()
        .filter(|t| {
            !(t.is_empty()
                || t.starts_with('#')
                || t.starts_with("http://")
                || t.starts_with("https://")
                || t.starts_with("mailto:"))
        })
        .filter(|t| {
            let file = t.split('#').next().unwrap();
            !dir.join(file).exists()
        })
        .collect()
}

/// The anchor mdBook gives a heading: lower case, letters, digits, `-`
/// and `_` kept, spaces made `-`, everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of the headings of a Markdown `text`, outside code.
fn anchors(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// The links in `text` (a file in `dir`) to `FILE.md#anchor` (or
/// `#anchor` within `text`) whose anchor no heading of that file has.
fn broken_anchors(text: &str, dir: &Path) -> Vec<String> {
    targets(text)
        .into_iter()
        .filter(|t| !t.starts_with("http://") && !t.starts_with("https://"))
        .filter(|t| {
            let Some((file, anchor)) = t.split_once('#') else {
                return false;
            };
            let page = if file.is_empty() {
                text.to_string()
            } else if file.ends_with(".md") && dir.join(file).is_file() {
                read(&dir.join(file))
            } else {
                return false;
            };
            !anchors(&page).iter().any(|a| a == anchor)
        })
        .collect()
}

#[test]
fn every_link_to_a_heading_names_one_that_exists() {
    let mut files = vec![root().join("README.md")];
    files.extend(chapters_on_disk());
    let mut with_anchor = 0;
    for path in &files {
        let text = read(path);
        with_anchor += targets(&text).iter().filter(|t| t.contains('#')).count();
        let broken = broken_anchors(&text, path.parent().unwrap());
        assert!(
            broken.is_empty(),
            "{}: links to missing headings {broken:?}",
            path.display()
        );
    }
    assert!(with_anchor >= 10, "only {with_anchor} links to headings");
    assert_eq!(slug("Checkpoints (`--weights`)"), "checkpoints---weights");
    // A link to a heading that was renamed is caught.
    let src = root().join("docs/src");
    let edited = "[gone](checks.md#no-such-heading) [here](#nor-this)\n# Here\n";
    assert_eq!(
        broken_anchors(edited, &src),
        ["checks.md#no-such-heading", "#nor-this"]
    );
}

/// The chapters a SUMMARY.md text lists, in order.
fn listed(summary: &str) -> Vec<String> {
    targets(summary)
        .into_iter()
        .filter(|t| t.ends_with(".md"))
        .collect()
}

#[test]
fn every_chapter_the_summary_lists_exists_and_every_chapter_is_listed() {
    let src = root().join("docs/src");
    let summary = read(&src.join("SUMMARY.md"));
    let listed = listed(&summary);
    assert!(listed.len() >= 10, "{listed:?}");
    for chapter in &listed {
        assert!(
            src.join(chapter).is_file(),
            "SUMMARY.md lists {chapter}, which does not exist"
        );
    }
    for path in chapters_on_disk() {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        assert!(
            name == "SUMMARY.md" || listed.contains(&name),
            "docs/src/{name} is not listed in SUMMARY.md"
        );
    }
    assert!(root().join("docs/book.toml").is_file());
    // A SUMMARY.md listing a chapter that is not there is caught.
    let edited = format!("{summary}- [Gone](no-such-chapter.md)\n");
    assert!(
        listed_missing(&edited, &src) == ["no-such-chapter.md"],
        "{edited}"
    );
}

fn listed_missing(summary: &str, src: &Path) -> Vec<String> {
    listed(summary)
        .into_iter()
        .filter(|c| !src.join(c).is_file())
        .collect()
}

#[test]
fn every_relative_link_in_the_readme_and_the_book_points_at_a_file() {
    let mut files = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    files.extend(chapters_on_disk());
    let mut checked = 0;
    for path in &files {
        let text = read(path);
        checked += targets(&text).len();
        let broken = broken_links(&text, path.parent().unwrap());
        assert!(
            broken.is_empty(),
            "{}: broken links {broken:?}",
            path.display()
        );
    }
    assert!(checked >= 20, "only {checked} links found");
    // An edited copy with a link to a missing file, and one with a bad
    // include, are caught; a link inside code is not a link.
    let readme = read(&root().join("README.md"));
    let edited = format!("{readme}\nSee [the gone chapter](docs/src/gone.md#top).\n");
    assert_eq!(broken_links(&edited, root()), ["docs/src/gone.md#top"]);
    let edited = "{{#include ../../NO-SUCH.md}}\n`[a](b.md)`\n```text\n[c](d.md)\n```\n";
    assert_eq!(
        broken_links(edited, &root().join("docs/src")),
        ["../../NO-SUCH.md"]
    );
}

/// The blocks of `text` that show a `$ shapetrace` command but are not
/// ```console blocks, which `tests/book.rs` runs; ```sh blocks are
/// allowed (the stepper, Python), but show no `$ ` prompt. trycmd runs a
/// block only when its fence starts the line: an indented ```console
/// block (inside a list item) is never run, so it counts as not one.
fn unrun_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lang: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_start();
        match &lang {
            None if t.starts_with("```") => {
                let fence = t.trim_start_matches('`');
                lang = Some(if line.starts_with("```") {
                    fence.to_string()
                } else {
                    format!("{fence}, indented")
                });
            }
            Some(_) if t.starts_with("```") => lang = None,
            Some(l) if l != "console" && t.starts_with("$ shapetrace") => {
                out.push(format!("line {}: {t}", n + 1));
            }
            _ => {}
        }
    }
    out
}

#[test]
fn every_shown_command_with_its_output_is_one_the_book_test_runs() {
    let mut files = vec![root().join("README.md")];
    files.extend(chapters_on_disk());
    let mut console = 0;
    for path in &files {
        let text = read(path);
        console += text.matches("```console").count();
        let unrun = unrun_commands(&text);
        assert!(
            unrun.is_empty(),
            "{}: a `$ shapetrace` command outside a ```console block is never run: {unrun:?}",
            path.display()
        );
    }
    assert!(console >= 30, "only {console} console blocks");
    // A command with its output in a ```text block is caught.
    let edited = "```text\n$ shapetrace params\nlesson: 1 parameter\n```\n";
    assert_eq!(unrun_commands(edited), ["line 2: $ shapetrace params"]);
    // So is one in a ```console block indented under a list item.
    let indented = "- a step:\n\n  ```console\n  $ shapetrace params\n  ```\n";
    assert_eq!(unrun_commands(indented), ["line 4: $ shapetrace params"]);
}

/// The commands of the README's tour (between the tour markers, one a
/// line, a `#` comment after), each of which must be run, as written, in a
/// ```console block of the book.
fn tour_commands_not_in(readme: &str, book: &str) -> Vec<String> {
    let tour = readme
        .split("<!-- tour:start -->\n")
        .nth(1)
        .and_then(|s| s.split("<!-- tour:end -->").next())
        .expect("README has the tour markers");
    tour.lines()
        .filter(|l| l.starts_with("shapetrace"))
        .map(|l| l.split(" #").next().unwrap().trim_end().to_string())
        .filter(|cmd| !book.lines().any(|b| b.trim_start() == format!("$ {cmd}")))
        .collect()
}

#[test]
fn every_command_of_the_readme_tour_is_run_in_the_book() {
    let readme = read(&root().join("README.md"));
    let book: String = chapters_on_disk().iter().map(|p| read(p)).collect();
    let tour_lines = readme
        .lines()
        .filter(|l| l.starts_with("shapetrace "))
        .count();
    assert!(tour_lines >= 10, "the tour shows {tour_lines} commands");
    assert_eq!(tour_commands_not_in(&readme, &book), Vec::<String>::new());
    // A tour command the book never runs is caught.
    let edited = readme.replacen("shapetrace faults ", "shapetrace faults --format json ", 1);
    assert_eq!(
        tour_commands_not_in(&edited, &book),
        ["shapetrace faults --format json"]
    );
}
