"""The `steadlith` command: `main` parses the arguments and runs the subcommands, the
larger of which have their own module (`audit`, `batch`, `lab`, `sweep`); `progress`
draws their tqdm bars.
"""
