//! `shapetrace completions SHELL` and `shapetrace man`: made from the same
//! clap definition as the parser, so neither can name a flag the parser
//! lacks. Each is made whole in memory; the caller writes it once.

use super::{Cli, Command};
use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::roff::{Roff, bold, roman};
use std::io;

/// The bytes `completions` or `man` print, made whole; `None` for any
/// other command.
pub fn of(command: &Command) -> Option<io::Result<Vec<u8>>> {
    match command {
        Command::Completions(args) => Some(Ok(completions(args.shell))),
        Command::Man(args) => Some(man(args.command.as_deref())),
        _ => None,
    }
}

/// A `shapetrace man COMMAND` value: a command of the parser's, by name.
///
/// # Errors
/// The value and every command name, for a name that is none.
pub fn page(name: &str) -> Result<String, String> {
    let mut cli = Cli::command();
    // Built, as `man` renders it: `help` is a command too.
    cli.build();
    let names: Vec<&str> = cli.get_subcommands().map(clap::Command::get_name).collect();
    if names.contains(&name) {
        Ok(name.to_string())
    } else {
        Err(format!("allowed: {}", names.join(", ")))
    }
}

/// The completion script for `shell`.
pub fn completions(shell: Shell) -> Vec<u8> {
    let mut bytes = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "shapetrace", &mut bytes);
    bytes
}

/// The manual page, section 1, in roff: shapetrace(1), or with a
/// command's name shapetrace-COMMAND(1), which shapetrace(1) lists.
/// clap's sections (name, synopsis, description, options, subcommands),
/// then the exit status every command keeps and where the rest is written.
pub fn man(command: Option<&str>) -> io::Result<Vec<u8>> {
    let mut cli = Cli::command();
    // Built, each command is named as shapetrace(1) lists it:
    // shapetrace-trace, its synopsis `shapetrace trace`.
    cli.build();
    let cmd = match command.and_then(|name| cli.find_subcommand(name)) {
        Some(sub) => sub.clone(),
        None => cli,
    };
    // Every page's footer names the release, a command's page too.
    let man = clap_mangen::Man::new(cmd).source(concat!("shapetrace ", env!("CARGO_PKG_VERSION")));
    let mut bytes = Vec::new();
    man.render_title(&mut bytes)?;
    man.render_name_section(&mut bytes)?;
    man.render_synopsis_section(&mut bytes)?;
    man.render_description_section(&mut bytes)?;
    man.render_options_section(&mut bytes)?;
    man.render_subcommands_section(&mut bytes)?;
    let mut roff = Roff::new();
    roff.control("SH", ["EXIT STATUS"]);
    for (code, meaning) in [
        (
            "0",
            "the command did its work; for check and probes, every check held",
        ),
        (
            "1",
            "check or probes ran and a check failed (the failing check is named)",
        ),
        (
            "2",
            "bad input: a flag value, a file or a combination, refused in one line naming the value and what is allowed; nothing is written",
        ),
    ] {
        roff.control("TP", [] as [&str; 0]);
        roff.text([bold(code)]);
        roff.text([roman(meaning)]);
    }
    roff.control("SH", ["ENVIRONMENT"]);
    roff.text([roman(
        "LC_ALL, LC_MESSAGES, LANG: a value starting zh_TW or zh-TW picks Traditional Chinese (--lang overrides). TERM=linux draws in ASCII, as --ascii does.",
    )]);
    roff.control("SH", ["SEE ALSO"]);
    roff.text([roman(
        "shapetrace help COMMAND for each command's options; the book in docs/ (mdbook build docs) for the tutorial, the instructor's guide and the reference.",
    )]);
    roff.to_writer(&mut bytes)?;
    if command.is_none() {
        // Only the top command carries the version.
        man.render_version_section(&mut bytes)?;
    }
    Ok(bytes)
}
