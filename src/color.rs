//! When to paint: `--color auto|always|never`, and for `auto` the
//! conventions of the terminal world, decided by `anstream` (the crate
//! clap already uses: `NO_COLOR`, `CLICOLOR`, `CLICOLOR_FORCE`, `TERM`,
//! whether stdout is a terminal) plus two rules it does not apply:
//! `FORCE_COLOR` forces colour, and `TERM=dumb` refuses it even on a CI
//! runner (where `anstream` paints a terminal whatever `TERM` says). What
//! to paint is `colored`'s; this only sets its switch, once, before any
//! command writes.

use clap::ValueEnum;

/// The `--color` choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// Paint when stdout is a terminal that takes colour, unless the
    /// environment says otherwise.
    #[default]
    Auto,
    /// Always paint.
    Always,
    /// Never paint.
    Never,
}

/// Whether output is painted under `when` and this environment.
pub fn painted(when: ColorWhen) -> bool {
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
            if !no_color && force_color() {
                return true;
            }
            let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
            if dumb && !set_and_not_zero("CLICOLOR_FORCE") {
                return false;
            }
            anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
        }
    }
}

/// `FORCE_COLOR` set to anything but empty, `0` or `false`.
fn force_color() -> bool {
    std::env::var("FORCE_COLOR").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"))
}

/// The variable `name` set to anything but empty or `0`.
fn set_and_not_zero(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Sets `colored`'s switch for the whole process.
pub fn apply(when: ColorWhen) {
    colored::control::set_override(painted(when));
}
