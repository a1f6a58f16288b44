//! The TOML config file: its keys become flags of the chosen command.

use anyhow::{bail, Context};
use std::ffi::OsString;
use std::path::Path;

/// The command line with the TOML config file's settings added (if there is a file): a key
/// becomes `--key=value` when the chosen command has that flag and neither the command line
/// nor its `ALLOT_<KEY>` variable sets it, so precedence is flag > env > file > default.
/// Keys the command has no flag for are ignored (one file serves every command). `cli` is
/// the whole command line's definition (`Cli::command()`).
pub(crate) fn with_config_file(
    cli: &clap::Command,
    mut args: Vec<OsString>,
    path: Option<&Path>,
) -> anyhow::Result<Vec<OsString>> {
    let Some(path) = path else { return Ok(args) };
    let text = std::fs::read_to_string(path).with_context(|| format!("reading config {}", path.display()))?;
    let table: toml::Table = text
        .parse()
        .with_context(|| format!("parsing config {}", path.display()))?;
    let command = chosen_command(cli, &args);
    for (key, value) in table {
        let long = key.replace('_', "-");
        let Some(arg) = command.get_arguments().find(|a| a.get_long() == Some(long.as_str())) else {
            continue;
        };
        let given = args.iter().any(|a| {
            a.to_str()
                .is_some_and(|a| a == format!("--{long}") || a.starts_with(&format!("--{long}=")))
        });
        let env_set = arg.get_env().is_some_and(|e| std::env::var_os(e).is_some());
        if given || env_set {
            continue;
        }
        match value {
            toml::Value::Boolean(true) if !arg.get_action().takes_values() => args.push(format!("--{long}").into()),
            toml::Value::Boolean(false) if !arg.get_action().takes_values() => {}
            toml::Value::String(v) => args.push(format!("--{long}={v}").into()),
            toml::Value::Integer(v) => args.push(format!("--{long}={v}").into()),
            toml::Value::Float(v) => args.push(format!("--{long}={v}").into()),
            toml::Value::Boolean(v) => args.push(format!("--{long}={v}").into()),
            other => bail!("config key `{key}`: unsupported value {other}"),
        }
    }
    Ok(args)
}

/// The (sub)command `args` run, e.g. `bench flash-sale`: its flags are the ones a config key
/// may set.
pub(crate) fn chosen_command(cli: &clap::Command, args: &[OsString]) -> clap::Command {
    let mut command = cli.clone();
    command.build();
    let matches = cli.clone().ignore_errors(true).get_matches_from(args);
    let mut m = &matches;
    while let Some((name, sub)) = m.subcommand() {
        let Some(next) = command.find_subcommand(name).cloned() else {
            break;
        };
        command = next;
        m = sub;
    }
    command
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Cli, Cmd};
    use clap::{CommandFactory, Parser};

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn config_file_fills_only_what_the_command_line_leaves_open() {
        let path = std::env::temp_dir().join(format!("allot-cli-{}.toml", std::process::id()));
        std::fs::write(
            &path,
            "listen = \"127.0.0.1:1\"\nmax_lines = 7\nmax_claim = 3\nallow_unsafe_strategies = true\nnot_a_flag = 1\n",
        )
        .unwrap();
        let got = with_config_file(&Cli::command(), args(&["allot", "serve", "--max-lines=9"]), Some(&path)).unwrap();
        let cli = Cli::parse_from(&got);
        let Cmd::Serve(s) = cli.cmd else { panic!("serve") };
        assert_eq!(s.listen, "127.0.0.1:1", "from the file");
        assert_eq!(s.limits.limits().max_lines, 9, "the flag wins over the file");
        assert_eq!(s.limits.limits().max_claim, 3, "a limit from the file");
        assert!(s.allow_unsafe_strategies, "a boolean flag from the file");
        // Another command takes only the keys it has flags for.
        let got = with_config_file(&Cli::command(), args(&["allot", "audit"]), Some(&path)).unwrap();
        assert_eq!(got, args(&["allot", "audit"]));
        let _ = std::fs::remove_file(&path);
    }
}
