"""The `steadlith` command: `main` parses the arguments, runs the subcommands and turns
every failure into an exit status, writing through a guarded standard output (`output`);
the larger subcommands have their own module (`chunk` for chunk and params, `audit`,
`batch`, `lab`, `sweep`); `progress` draws their tqdm bars.
"""
