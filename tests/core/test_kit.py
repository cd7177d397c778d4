"""The kit's layout: a small core, named namespaces, and the old names that moved, still lent for a while."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from proseval import kit, registry

MOVED = sorted(
    {(name, space) for space in kit.NAMESPACES for name in getattr(kit, space).__all__ if name not in kit.__all__}
)


def test_dir_lists_the_core_and_the_namespaces_only():
    assert dir(kit) == sorted([*kit.__all__, *kit.NAMESPACES])
    assert not {name for name, _ in MOVED} & set(dir(kit))


@pytest.mark.parametrize(("name", "space"), MOVED, ids=[f"{space}.{name}" for name, space in MOVED])
def test_a_moved_name_still_resolves_with_a_warning_naming_its_new_place(name, space):
    with pytest.warns(DeprecationWarning, match=rf"proseval\.kit\.{name} .* use proseval\.kit\.{space}\.{name}$"):
        old = getattr(kit, name)
    assert old is getattr(importlib.import_module(f"proseval.kit.{space}"), name)
    with pytest.warns(DeprecationWarning):  # every use warns, not only the first
        getattr(kit, name)


def test_the_task_options_formatter_is_a_deprecated_alias_of_the_one_formatter():
    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        max_words: int

    with pytest.raises(ValidationError) as caught:
        Params.model_validate({"max_words": "x", "colour": 1})
    with pytest.warns(DeprecationWarning, match="describe_validation_error"):
        old = kit.format_validation_error
    assert old is registry.format_validation_error
    assert old("mybench", caught.value) == kit.describe_validation_error(caught.value, task="mybench")
    assert kit.describe_validation_error(caught.value, task="mybench") == (
        "task mybench: --max-words: Input should be a valid integer, unable to parse string as an integer; "
        "--colour: unknown parameter (see: proseval describe mybench)"
    )
    assert kit.describe_validation_error(caught.value) == (
        "max_words: Input should be a valid integer, unable to parse string as an integer; colour: unknown field"
    )


def test_an_unknown_name_is_an_attribute_error_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="no_such_name"):
            kit.no_such_name  # noqa: B018  # the look-up is what is tested
        with pytest.raises(AttributeError, match="no_such_name"):
            kit.cli.no_such_name  # noqa: B018  # the look-up is what is tested


def test_the_built_in_benchmarks_use_no_deprecated_name():
    code = (
        "import importlib, pkgutil, proseval.benchmarks as b\n"
        "for m in pkgutil.walk_packages(b.__path__, 'proseval.benchmarks.'): importlib.import_module(m.name)\n"
    )
    done = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_importing_the_kit_and_its_namespaces_imports_nothing_heavy():
    code = (
        "import sys, proseval.kit\n"
        "for space in proseval.kit.NAMESPACES: getattr(proseval.kit, space)\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('proseval.'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    loaded = set(done.stdout.split())
    assert {f"proseval.kit.{space}" for space in kit.NAMESPACES} <= loaded
    assert not {"proseval.runtime", "proseval.commandline", "proseval.sandbox", "proseval.plots"} & loaded
