//! Every command the README and the book show in a ```console block runs
//! here, and must print what is written under it (its exit code on a
//! `? N` line; `[..]` and `...` only where a value honestly varies).
//! `TRYCMD=overwrite cargo test --release --test book` rewrites the
//! outputs; read them before committing. Commands that open the stepper or
//! need Python stay in ```sh blocks, which are not run.
//!
//! The commands run from the repository's root, so they name fixtures as
//! `tests/fixtures/…`; the language is forced to English whatever the
//! machine's locale.

#[test]
fn the_book_s_commands_print_what_the_book_shows() {
    trycmd::TestCases::new()
        .register_bin(
            "shapetrace",
            std::path::PathBuf::from(env!("CARGO_BIN_EXE_shapetrace")),
        )
        .env("LC_ALL", "C")
        .env("LC_MESSAGES", "C")
        .env("LANG", "C")
        .env("NO_COLOR", "1")
        .case("README.md")
        .case("docs/src/*.md");
}
