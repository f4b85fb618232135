//! When to paint: `--color auto|always|never`, and for `auto` the
//! conventions of the terminal world, decided by `anstream` (the crate
//! clap already uses: `NO_COLOR`, `CLICOLOR`, `CLICOLOR_FORCE`, `TERM=dumb`,
//! whether stdout is a terminal) plus `FORCE_COLOR`, which it does not
//! read. What to paint is `colored`'s; this only sets its switch, once,
//! before any command writes.

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
            anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
        }
    }
}

/// `FORCE_COLOR` set to anything but empty, `0` or `false`.
fn force_color() -> bool {
    std::env::var("FORCE_COLOR").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"))
}

/// Sets `colored`'s switch for the whole process.
pub fn apply(when: ColorWhen) {
    colored::control::set_override(painted(when));
}
