//! Every catalog key the stepper's code names exists in every catalog:
//! the literal keys in `src/tui` (what `t`, `tr` and `Why::new` are given)
//! and every key the key table names (the help's words, the footer's
//! hints). A key typed wrong, or added to one catalog and not the other,
//! fails here rather than showing its own name on the screen.

use shapetrace::i18n::Lang;
use shapetrace::tui::action::keys;
use shapetrace::why;
use std::collections::BTreeSet;
use std::path::Path;

/// The families of catalog keys, by their first word.
const FAMILIES: [&str; 12] = [
    "ui", "help", "heat", "chart", "budget", "formula", "quiz", "judge", "lab", "fault", "why",
    "check",
];

/// The string literals of `source` that name a catalog key: `"ui-tab-steps"`.
fn literal_keys(source: &str) -> BTreeSet<String> {
    source
        .split('"')
        .skip(1)
        .step_by(2)
        .filter(|lit| {
            let family = lit.split('-').next().unwrap_or("");
            FAMILIES.contains(&family)
                && lit.contains('-')
                && !lit.ends_with('-')
                && lit
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        })
        .map(String::from)
        .collect()
}

/// The keys of `used` that the catalog `source` lacks.
fn missing(used: &BTreeSet<String>, source: &str) -> Vec<String> {
    let have: BTreeSet<&str> = why::keys(source).into_iter().collect();
    used.iter()
        .filter(|k| !have.contains(k.as_str()))
        .cloned()
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every catalog key the stepper's code and key table name.
fn used() -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![root.join("tui.rs")];
    rust_files(&root.join("tui"), &mut files);
    let mut used: BTreeSet<String> = files
        .iter()
        .flat_map(|f| literal_keys(&std::fs::read_to_string(f).unwrap()))
        .collect();
    used.extend(keys::catalog_keys().map(String::from));
    used
}

#[test]
fn every_key_the_stepper_names_is_in_every_catalog() {
    let used = used();
    // The tabs' names, the help's words, the hints and the statuses at least.
    assert!(used.len() > 200, "{}", used.len());
    for key in [
        "ui-tab-budget",
        "help-typing",
        "ui-hint-resume",
        "ui-status-autoplay-end",
    ] {
        assert!(used.contains(key), "{key} is not found in the code");
    }
    for lang in Lang::ALL {
        assert_eq!(
            missing(&used, lang.source()),
            Vec::<String>::new(),
            "{}",
            lang.tag()
        );
    }
}

#[test]
fn a_key_a_catalog_lacks_is_named() {
    let code = r#"app.t("ui-tab-steps"); Why::new("ui-hint-nowhere").arg("n", 1); format!("ui-hint-{}", w); "two-way""#;
    let used = literal_keys(code);
    assert_eq!(
        used.iter().map(String::as_str).collect::<Vec<_>>(),
        ["ui-hint-nowhere", "ui-tab-steps"]
    );
    let catalog = "ui-tab-steps = Steps\n";
    assert_eq!(missing(&used, catalog), ["ui-hint-nowhere"]);
    assert!(missing(&used, "ui-tab-steps = Steps\nui-hint-nowhere = x\n").is_empty());
}
