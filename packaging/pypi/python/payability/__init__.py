"""The `payability` command: the wheel installs its binary on PATH; `python -m payability` runs it."""
