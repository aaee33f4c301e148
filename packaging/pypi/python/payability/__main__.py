"""`python -m payability`: runs the `payability` binary the wheel installed (ruff's way)."""

import os
import sys
import sysconfig


def find_payability_bin() -> str:
    """The path of the `payability` binary: this environment's scripts, else the user's."""
    exe = "payability" + (sysconfig.get_config_var("EXE") or "")
    path = os.path.join(sysconfig.get_path("scripts"), exe)
    if os.path.isfile(path):
        return path
    if sys.version_info >= (3, 10):
        user_scheme = sysconfig.get_preferred_scheme("user")
    elif sys.platform == "darwin" and sys._framework:
        user_scheme = "osx_framework_user"
    else:
        user_scheme = "posix_user"
    path = os.path.join(sysconfig.get_path("scripts", scheme=user_scheme), exe)
    if os.path.isfile(path):
        return path
    raise FileNotFoundError(path)


if __name__ == "__main__":
    payability = os.fsdecode(find_payability_bin())
    os.execvp(payability, [payability, *sys.argv[1:]])
