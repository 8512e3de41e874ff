//! What a packager needs: shell completions, the manual pages, and the
//! crate's metadata with its licence files.

mod common;

use common::{cli, refused_in_one_line};
use std::process::Command;

const SHELLS: [&str; 5] = ["bash", "zsh", "fish", "powershell", "elvish"];

/// The commands the parser knows, from `shapetrace --help`.
fn commands() -> Vec<String> {
    let (_, help, _) = cli(&["--help"]);
    help.split("Commands:\n")
        .nth(1)
        .expect("--help lists the commands")
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn every_shell_gets_a_script_naming_every_command() {
    let commands = commands();
    assert!(commands.len() >= 10, "{commands:?}");
    for shell in SHELLS {
        let (code, out, err) = cli(&["completions", shell]);
        assert_eq!(code, Some(0), "{shell}: {err}");
        assert!(err.is_empty(), "{shell}: {err}");
        for word in commands
            .iter()
            .map(String::as_str)
            .chain(["preset", "lang"])
        {
            assert!(out.contains(word), "{shell}: no {word}");
        }
    }
}

/// Sourced in bash, the script completes a command and a flag's values.
#[test]
fn bash_completes_a_command_and_a_format() {
    if Command::new("bash").arg("--version").output().is_err() {
        panic!("bash is needed to run the bash completion script");
    }
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_shapetrace"));
    let complete = |line: &[&str]| {
        let words = line
            .iter()
            .map(|w| format!("'{w}'"))
            .collect::<Vec<_>>()
            .join(" ");
        let script = format!(
            "source <('{bin}' completions bash) || exit 3; \
             COMP_WORDS=({words}); COMP_CWORD={}; COMP_LINE=\"${{COMP_WORDS[*]}}\"; \
             _shapetrace shapetrace \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            line.len() - 1,
            bin = bin.display()
        );
        let o = Command::new("bash")
            .arg("-c")
            .arg(&script)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{script}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    };
    assert_eq!(
        complete(&["shapetrace", "tr"]).trim(),
        "trace",
        "{}",
        bin.display()
    );
    let formats = complete(&["shapetrace", "trace", "--format", ""]);
    assert_eq!(
        formats.split_whitespace().collect::<Vec<_>>(),
        ["table", "json", "markdown", "html"]
    );
    // The presets and the faults, which our own code judges (for its
    // one-line refusals), are still offered by name.
    let presets = complete(&["shapetrace", "--preset", "gpt2-"]);
    assert_eq!(
        presets.split_whitespace().collect::<Vec<_>>(),
        ["gpt2-small", "gpt2-medium", "gpt2-large", "gpt2-xl"]
    );
    let faults = complete(&["shapetrace", "check", "--fault", "no-c"]);
    assert_eq!(faults.trim(), "no-causal-mask");
    // A word no command starts with completes to nothing: the check can fail.
    assert_eq!(complete(&["shapetrace", "zzz"]).trim(), "");
}

#[test]
fn an_unknown_shell_is_refused_naming_the_allowed_ones() {
    refused_in_one_line(
        &["completions", "tcsh"],
        "invalid value 'tcsh' for <SHELL>; allowed: bash, elvish, fish, powershell, zsh",
    );
    refused_in_one_line(
        &["completions", "bash", "--preset", "gpt2-small"],
        "so --preset does not apply",
    );
}

/// The `shapetrace-X(1)` pages the top page names.
fn pages_named(roff: &str) -> Vec<String> {
    roff.split("shapetrace\\-")
        .skip(1)
        .filter_map(|rest| rest.split_once("(1)").map(|(name, _)| name.to_string()))
        .filter(|name| name.chars().all(|c| c.is_ascii_lowercase()))
        .collect()
}

#[test]
fn the_manual_has_a_page_for_every_command_it_names() {
    let (code, top, err) = cli(&["man"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(top.contains(".TH shapetrace 1"), "{top}");
    for section in [
        "NAME",
        "SYNOPSIS",
        "OPTIONS",
        "SUBCOMMANDS",
        "\"EXIT STATUS\"",
        "VERSION",
    ] {
        assert!(top.contains(&format!(".SH {section}\n")), "no {section}");
    }
    let named = pages_named(&top);
    let mut want = commands();
    want.sort();
    let mut got = named.clone();
    got.sort();
    assert_eq!(got, want, "the top page lists every command");
    for name in named {
        let (code, page, err) = cli(&["man", &name]);
        assert_eq!(code, Some(0), "{name}: {err}");
        assert!(
            page.contains(&format!(".TH shapetrace-{name} 1 ")),
            "{name}: {page}"
        );
        assert!(
            page.contains(env!("CARGO_PKG_VERSION")),
            "{name}: no version"
        );
        assert!(page.contains(".SH \"EXIT STATUS\""), "{name}");
    }
    refused_in_one_line(
        &["man", "bogus"],
        "invalid value 'bogus' for [COMMAND]: allowed: trace, check",
    );
}

/// The fields a registry shows, and a licence file for each licence, named
/// as Rust projects name them: LICENSE-MIT, LICENSE-APACHE.
fn metadata_gaps(manifest: &str, root: &std::path::Path) -> Vec<String> {
    let doc: toml::Table = manifest.parse().expect("Cargo.toml parses");
    let package = doc["package"].as_table().expect("[package]");
    let mut gaps: Vec<String> = [
        "description",
        "license",
        "repository",
        "readme",
        "keywords",
        "categories",
        "rust-version",
    ]
    .iter()
    .filter(|k| !package.contains_key(**k))
    .map(|k| format!("no {k}"))
    .collect();
    if let Some(license) = package.get("license").and_then(|l| l.as_str()) {
        for id in license.split(" OR ") {
            let file = format!(
                "LICENSE-{}",
                id.split('-').next().unwrap_or(id).to_uppercase()
            );
            if !root.join(&file).is_file() {
                gaps.push(format!("no {file} for {id}"));
            }
        }
    }
    if let Some(readme) = package.get("readme").and_then(|r| r.as_str())
        && !root.join(readme).is_file()
    {
        gaps.push(format!("no {readme}"));
    }
    gaps
}

#[test]
fn the_crate_carries_its_metadata_and_licence_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    assert_eq!(metadata_gaps(&manifest, root), Vec::<String>::new());
    // A manifest missing a field, or naming a licence with no file, is caught.
    let cut = manifest.replacen("rust-version", "rust-versio", 1);
    assert_eq!(metadata_gaps(&cut, root), ["no rust-version"]);
    let other = manifest.replacen("MIT OR Apache-2.0", "MIT OR BSD-3-Clause", 1);
    assert_eq!(
        metadata_gaps(&other, root),
        ["no LICENSE-BSD for BSD-3-Clause"]
    );
}
