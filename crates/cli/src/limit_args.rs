//! The named limits as flags: built from `allot_core::Limits::TABLE`.

use allot_core::Limits;
use clap::Args;

/// The named limits as flags and `ALLOT_*` variables, built from [`Limits::TABLE`] (one
/// place defines each limit's name, default, help and minimum).
#[derive(Clone, Debug, Default)]
pub(crate) struct LimitArgs {
    pub(crate) limits: Limits,
}

impl LimitArgs {
    pub(crate) fn limits(&self) -> Limits {
        self.limits.clone()
    }

    /// `max_lines` -> `ALLOT_MAX_LINES`.
    fn env_name(name: &str) -> String {
        format!("ALLOT_{}", name.to_uppercase())
    }
}

impl clap::FromArgMatches for LimitArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut limits = Limits::default();
        for info in Limits::TABLE {
            if let Some(v) = m.get_one::<String>(info.name) {
                limits
                    .set(info.name, v)
                    .map_err(|e| clap::Error::raw(clap::error::ErrorKind::ValueValidation, e))?;
            }
        }
        Ok(LimitArgs { limits })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for LimitArgs {
    fn augment_args(mut cmd: clap::Command) -> clap::Command {
        for info in Limits::TABLE {
            let default = Limits::default_text(info.name).unwrap_or_default();
            cmd = cmd.arg(
                clap::Arg::new(info.name)
                    .long(info.name.replace('_', "-"))
                    .env(Self::env_name(info.name))
                    .value_name(info.name.to_uppercase())
                    .default_value(default)
                    .help(info.help.trim())
                    .help_heading("Limits"),
            );
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}
