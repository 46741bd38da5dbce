"""The `minitvm` subcommands, one module each (tools/cli.py builds the parser from them):
each has an `add_<name>_command(subparsers)` that declares its arguments and sets `run` to
its `run_<name>(args)`, the function that does the work. `import` is import_model.py."""
