"""Assembles the `payability` wheel from a binary already built, with the standard library only.

    python3 packaging/pypi/wheel.py --binary PATH --version V --out DIR

The layout is what maturin's `bindings = "bin"` build of pyproject.toml produces: the package
`payability` (python/payability: `python -m payability`), the binary as
`payability-V.data/scripts/payability` (pip installs it on PATH, executable), and the
dist-info (METADATA from pyproject.toml, WHEEL, RECORD with each file's sha256). The tag is
`py3-none-<this interpreter's platform>` (`linux_x86_64` here): installable on this machine,
not a manylinux tag PyPI accepts, which maturin's audit of the binary decides on the release
path. Prints the wheel's path.
"""

import argparse
import base64
import hashlib
import os
import re
import sysconfig
import tomllib
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
# Fixed timestamps: the same inputs give the same bytes.
EPOCH = (1980, 1, 1, 0, 0, 0)


def record_hash(data: bytes) -> str:
    """A RECORD hash: `sha256=` and the urlsafe base64 digest without padding."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def metadata(version: str) -> str:
    """Core metadata 2.1 from pyproject.toml's [project] and its readme."""
    with open(os.path.join(HERE, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    with open(os.path.join(HERE, project["readme"]), encoding="utf-8") as f:
        readme = f.read()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {version}",
        f"Summary: {project['description']}",
        f"Keywords: {','.join(project['keywords'])}",
        f"License: {project['license']}",
        f"Requires-Python: {project['requires-python']}",
        *(f"Classifier: {c}" for c in project["classifiers"]),
        *(f"Project-URL: {name}, {url}" for name, url in project["urls"].items()),
        "Description-Content-Type: text/markdown; charset=UTF-8; variant=GFM",
    ]
    return "\n".join(lines) + "\n\n" + readme


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if not re.fullmatch(r"\d+(\.\d+)*", args.version):
        parser.error(f"version {args.version!r}: only release versions (N.N.N) map to PEP 440 here")

    tag = "py3-none-" + re.sub(r"[-.]", "_", sysconfig.get_platform())
    dist = f"payability-{args.version}"
    files = []  # (archive name, bytes, executable)
    package = os.path.join(HERE, "python", "payability")
    for name in sorted(os.listdir(package)):
        if name.endswith(".py"):
            with open(os.path.join(package, name), "rb") as f:
                files.append((f"payability/{name}", f.read(), False))
    with open(args.binary, "rb") as f:
        files.append((f"{dist}.data/scripts/payability", f.read(), True))
    wheel = f"Wheel-Version: 1.0\nGenerator: payability-verdict packaging/pypi/wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n"
    files.append((f"{dist}.dist-info/METADATA", metadata(args.version).encode(), False))
    files.append((f"{dist}.dist-info/WHEEL", wheel.encode(), False))
    record = "".join(f"{name},{record_hash(data)},{len(data)}\n" for name, data, _ in files)
    files.append((f"{dist}.dist-info/RECORD", (record + f"{dist}.dist-info/RECORD,,\n").encode(), False))

    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"{dist}-{tag}.whl")
    with zipfile.ZipFile(path, "w") as archive:
        for name, data, executable in files:
            info = zipfile.ZipInfo(name, date_time=EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            archive.writestr(info, data)
    print(path)


if __name__ == "__main__":
    main()
