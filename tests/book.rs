//! Every command the README and the book show in a ```console block runs
//! here, and must print what is written under it, with its exit code on a
//! `? N` line. A `...` line stands for lines an excerpt leaves out, and
//! `[..]` for a value that honestly varies (a rounding error that depends
//! on the CPU's kernels). `TRYCMD=overwrite cargo test --release --test
//! book` rewrites the outputs; read them before committing (it drops an
//! excerpt whose lines no longer match). Commands that open the stepper or
//! need Python stay in ```sh blocks, which are not run.
//!
//! trycmd drops the last newline of what a step expects, so an output that
//! ends in a line of its own is followed by one blank line; snapbox shows
//! a backslash in the output as `/`, so a line holding one ends in `[..]`.
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
