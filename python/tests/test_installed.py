"""The package as a user has it: installed from the wheel scripts/dist.sh packs,
under its distribution name, not the sources in python/toolhost."""

import importlib.metadata
import sysconfig
from pathlib import Path

import toolhost


def test_toolhost_is_imported_from_the_installed_wheel():
    site = Path(sysconfig.get_paths()["platlib"]).resolve()
    assert Path(toolhost.__file__).resolve().is_relative_to(site)
    distribution = importlib.metadata.distribution("toolhost-wasm")
    assert distribution.version == toolhost.__version__
    files = {str(path) for path in distribution.files}
    assert "toolhost/_native.abi3.so" in files and "toolhost/__init__.py" in files
    assert distribution.read_text("WHEEL").count("Root-Is-Purelib: false") == 1


def test_the_distribution_says_what_it_is():
    metadata = importlib.metadata.metadata("toolhost-wasm")
    assert metadata["Name"] == "toolhost-wasm"
    assert "WebAssembly" in metadata["Summary"]
    assert metadata["Requires-Python"] == ">=3.9"
