"""The mutator (python -m freezegate_pytest.mutants): which mutants of which lines, written as
whole lines that a caller splices into the file, each checked to compile and to parse to the
intended tree; the import probe; refusals."""

import ast
import json
import re
import subprocess
import sys
import textwrap

import pytest
from conftest import PACKAGE_DIR

from freezegate_pytest import mutants as mutator

LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text):
    """Lines with their endings, split as Python splits source (what the caller does too)."""
    lines, start = [], 0
    for match in LINE_BREAK.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


def splice(text, edit):
    """The file with lines startLine..endLine replaced by the edit's text."""
    lines = split_lines(text)
    lines[edit["startLine"] - 1 : edit["endLine"]] = [edit["text"]]
    return "".join(lines)


def write(tmp_path, text, name="mod.py"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def mutate(path, lines, *extra):
    return mutator.run(["--file", str(path), "--lines", lines, *extra])


def summary(result):
    return [(m["line"], m["kind"], m["description"]) for m in result["mutants"]]


def cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "freezegate_pytest.mutants", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(PACKAGE_DIR), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
        check=False,
    )


KINDS = textwrap.dedent(
    '''\
    def clamp(low, value, high):
        if value < low:
            return low
        total = value + 1
        total *= 2
        ready = not total and high
        sign = -value
        flag = True
        ratio = 0.5
        picked = [v for v in range(3) if v]
        return high if total >= high else total
    '''
)


def test_each_kind_of_mutant_on_its_own_line_in_a_fixed_order(tmp_path):
    path = write(tmp_path, KINDS)
    result = mutate(path, "1-11")
    assert result["version"] == 1 and result["file"] == str(path) and result["unmutable"] == 0
    assert "probe" not in result
    assert summary(result) == [
        (2, "comparison", "`value < low` -> `value <= low`"),
        (2, "condition", "`value < low` -> `not (value < low)`"),
        (3, "return", "`return low` -> `return None`"),
        (4, "operator", "`value + 1` -> `value - 1`"),
        (4, "constant", "`1` -> `2`"),
        (5, "operator", "`total *= 2` -> `total /= 2`"),
        (5, "constant", "`2` -> `3`"),
        (6, "operator", "`not total and high` -> `not total or high`"),
        (6, "operator", "`not total` -> `total`"),
        (7, "operator", "`-value` -> `value`"),
        (8, "constant", "`True` -> `False`"),
        (9, "constant", "`0.5` -> `1.5`"),
        (10, "constant", "`3` -> `4`"),
        (10, "condition", "`v` -> `not (v)`"),
        # The returned value starts before the comparison inside it.
        (11, "return", "`return high if total >= high else total` -> `return None`"),
        (11, "comparison", "`total >= high` -> `total > high`"),
        (11, "condition", "`total >= high` -> `not (total >= high)`"),
    ]
    texts = {(m["line"], m["description"]): m["text"] for m in result["mutants"]}
    assert texts[(2, "`value < low` -> `not (value < low)`")] == "    if not (value < low):\n"
    assert texts[(6, "`not total` -> `total`")] == "    ready = total and high\n"
    assert texts[(10, "`v` -> `not (v)`")] == "    picked = [v for v in range(3) if not (v)]\n"
    assert texts[(11, "`total >= high` -> `not (total >= high)`")] == (
        "    return high if not (total >= high) else total\n"
    )
    # Only the chosen lines.
    assert summary(mutate(path, "3,8")) == [
        (3, "return", "`return low` -> `return None`"),
        (8, "constant", "`True` -> `False`"),
    ]


def test_every_operator_and_comparison_of_the_contract(tmp_path):
    source = "".join(
        f"r{i} = a {op} b\n"
        for i, op in enumerate(
            ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "<", "<=", ">", ">=", "==",
             "!=", "is", "is not", "in", "not in", "and", "or", "@"]
        )
    )
    path = write(tmp_path, source)
    changed = [m["text"].split(" = ")[1].strip() for m in mutate(path, "1-25")["mutants"]]
    assert changed == [
        "a - b", "a + b", "a / b", "a * b", "a / b", "a // b", "a * b", "a >> b", "a << b", "a | b",
        "a & b", "a & b", "a <= b", "a < b", "a >= b", "a > b", "a != b", "a == b", "a is not b",
        "a is b", "a not in b", "a in b", "a or b", "a and b",
    ]  # no mutant of @


def test_mutations_that_change_nothing_or_cannot_be_written_are_counted_not_printed(tmp_path):
    # 1e308 + 1.0 is 1e308; an operator split by a line continuation is not changed in place.
    path = write(tmp_path, "big = 1e308\nodd = a is \\\n    not b\n")
    result = mutate(path, "1-3")
    assert summary(result) == []
    assert result["unmutable"] == 2


def test_a_chained_comparison_gives_one_mutant_per_operator(tmp_path):
    path = write(tmp_path, "ok = 0 < x <= 9\n")
    assert [m["text"] for m in mutate(path, "1")["mutants"] if m["kind"] == "comparison"] == [
        "ok = 0 <= x <= 9\n",
        "ok = 0 < x < 9\n",
    ]


def test_parentheses_are_added_only_where_precedence_would_regroup_the_expression(tmp_path):
    path = write(
        tmp_path,
        "r1 = c * a ** b\nr2 = a or b and c\nr3 = a and b or c\nr4 = a | b & c\nr5 = 2 * -(a + b)\n"
        "r6 = -a ** 2\nr7 = (a) + (b)\n",
    )
    texts = [m["text"] for m in mutate(path, "1-7")["mutants"] if m["kind"] == "operator"]
    assert texts == [
        "r1 = c / a ** b\n",
        "r1 = c * (a * b)\n",
        "r2 = a and (b and c)\n",
        "r2 = a or (b or c)\n",
        "r3 = (a and b) and c\n",
        "r3 = (a or b) or c\n",
        "r4 = a & (b & c)\n",
        "r4 = a | (b | c)\n",
        "r5 = 2 / -(a + b)\n",
        "r5 = 2 * (a + b)\n",
        "r5 = 2 * -(a - b)\n",
        "r6 = a ** 2\n",
        "r6 = -(a * 2)\n",
        "r7 = (a) - (b)\n",
    ]


EXCLUDED = textwrap.dedent(
    '''\
    """Module docstring 1 + 2."""
    from __future__ import annotations
    import functools
    from typing import TYPE_CHECKING
    if TYPE_CHECKING:
        LIMIT = 1 + 2
    else:
        LIMIT = 3
    @functools.lru_cache(maxsize=128)
    def f(a: "int" = 1, *, b: int = 2) -> 3 + 4:
        """Function docstring, not 5 < 6."""
        size: 7 - 8 = 9
        label = f"{a + 10}"
        match a:
            case 11 | [12, 13]:
                return label
            case {"k": 14} if a > 15:
                return size
    '''
)


def test_docstrings_annotations_decorators_fstrings_patterns_and_type_checking_are_left_alone(tmp_path):
    path = write(tmp_path, EXCLUDED)
    assert summary(mutate(path, "1-18")) == [
        (8, "constant", "`3` -> `4`"),  # the branch that runs
        (10, "constant", "`1` -> `2`"),  # defaults run where the function is defined
        (10, "constant", "`2` -> `3`"),
        (12, "constant", "`9` -> `10`"),
        (16, "return", "`return label` -> `return None`"),
        (17, "comparison", "`a > 15` -> `a >= 15`"),  # a guard is an expression
        (17, "constant", "`15` -> `16`"),
        (18, "return", "`return size` -> `return None`"),
    ]


def test_a_multi_line_statement_is_chosen_by_its_first_line_and_only_changed_lines_are_replaced(tmp_path):
    text = "total = (first +  # a comment\n         second *\n         3)\nitems = [\n    1,\n]; tail = 4\n"
    path = write(tmp_path, text)
    assert mutate(path, "2-3")["mutants"] == []
    assert mutate(path, "5-6")["mutants"] == []
    result = mutate(path, "1")
    assert [(m["startLine"], m["endLine"], m["text"]) for m in result["mutants"]] == [
        (1, 1, "total = (first -  # a comment\n"),
        (2, 2, "         second /\n"),
        (3, 3, "         4)\n"),
    ]
    # ``tail = 4`` starts on line 6 but coverage.py reports it at line 4, where its logical
    # line (the statement before it on the same line) starts.
    assert summary(mutate(path, "4")) == [
        (4, "constant", "`1` -> `2`"),
        (4, "constant", "`4` -> `5`"),
    ]


def test_text_before_the_mutated_node_may_be_any_utf8(tmp_path):
    # ast's columns count UTF-8 bytes: é is 2, 🦀 is 4, the CJK characters 3 each.
    text = 'name = "é🦀漢字"; ok = len(name) > 3  # 注\n'
    path = write(tmp_path, text)
    result = mutate(path, "1")
    assert [m["text"] for m in result["mutants"]] == [
        'name = "é🦀漢字"; ok = len(name) >= 3  # 注\n',
        'name = "é🦀漢字"; ok = len(name) > 4  # 注\n',
    ]


def test_line_endings_and_a_byte_order_mark_are_kept(tmp_path):
    path = write(tmp_path, b"\xef\xbb\xbfx = 1\r\ny = 2\rz = 3")
    result = mutate(path, "1-3", "--probe")
    assert [m["text"] for m in result["mutants"]] == ["\ufeffx = 2\r\n", "y = 3\r", "z = 4"]
    assert result["probe"]["text"].startswith('\ufeffraise ImportError("freezegate mutant probe')
    assert result["probe"]["text"].endswith('was imported")\r\nx = 1\r\n')


def test_a_latin1_file_is_read_when_it_is_plain_ascii_and_refused_otherwise(tmp_path):
    path = write(tmp_path, b"# -*- coding: latin-1 -*-\nx = 1\n")
    assert summary(mutate(path, "2")) == [(2, "constant", "`1` -> `2`")]
    write(tmp_path, b"# -*- coding: latin-1 -*-\nx = 1  # caf\xe9\n")
    done = cli("--file", str(path), "--lines", "2")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"freezegate mutants: {path} is encoded as iso-8859-1, and mutants are written as UTF-8: "
        "convert the file to UTF-8 (and drop its coding line)\n"
    )


def test_output_is_deterministic_and_every_mutant_compiles_and_changes_the_tree(tmp_path):
    # One of the plugin's own modules: real code with every kind of mutant.
    path = PACKAGE_DIR / "freezegate_pytest" / "sweep.py"
    original = path.read_text(encoding="utf-8")
    lines = f"1-{len(split_lines(original))}"
    first = cli("--file", str(path), "--lines", lines)
    second = cli("--file", str(path), "--lines", lines)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout and first.stdout.endswith("\n") and first.stdout.isascii()
    result = json.loads(first.stdout)
    assert len(result["mutants"]) > 50
    assert {m["kind"] for m in result["mutants"]} == set(mutator.KINDS)
    baseline = ast.dump(ast.parse(original))
    for mutant in result["mutants"]:
        mutated = splice(original, mutant)
        compile(mutated, str(path), "exec", dont_inherit=True)
        assert ast.dump(ast.parse(mutated)) != baseline, mutant
    assert [m["line"] for m in result["mutants"]] == sorted(m["line"] for m in result["mutants"])


RUNS_EVERYTHING = textwrap.dedent(
    '''\
    import functools


    def deco(fn):
        return fn


    @deco
    @functools.wraps(deco)
    def f(a=1,
          b=-2):
        total = (a +
                 b)
        if total > 0 and a:
            total -= 1
        elif not total:
            total = len([x for x in range(3) if x % 2])
        while total and total < 0:
            total += 1
        assert total is not None
        match total:
            case 0 if a > 1:
                pass
            case _:
                pass
        try:
            1 / 0
        except (ZeroDivisionError, ValueError):
            pass
        return total if a else -total


    class K:
        size = 2 ** 3
        items = [
            1,
        ]; flag = True


    f()
    f(0, 0)
    f(5, -9)
    f(3, 1)
    '''
)


def test_every_mutant_line_is_a_line_coverage_py_reports_as_executed(tmp_path):
    coverage = pytest.importorskip("coverage")
    path = write(tmp_path, RUNS_EVERYTHING, name="target.py")
    script = (
        "import coverage, json, sys; sys.path.insert(0, sys.argv[1]);"
        "c = coverage.Coverage(data_file=None); c.start(); import target; c.stop();"
        "print(json.dumps(sorted(c.get_data().lines(sys.argv[2]))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path), str(path)], capture_output=True, text=True, check=True
    )
    executed = set(json.loads(done.stdout))
    result = mutate(path, f"1-{len(split_lines(RUNS_EVERYTHING))}")
    reported = {m["line"] for m in result["mutants"]}
    assert len(reported) >= 15, coverage.__version__
    assert reported <= executed, sorted(reported - executed)


def test_the_probe_comes_after_the_docstring_and_future_imports_and_makes_the_import_raise(tmp_path):
    text = '#!/usr/bin/env python\n"""Doc."""\n\nfrom __future__ import annotations\n# keep\nimport os\n'
    path = write(tmp_path, text, name="probed.py")
    probe = mutate(path, "6", "--probe")["probe"]
    message = f"freezegate mutant probe: this copy of {path} was imported"
    assert probe == {"startLine": 6, "endLine": 6, "text": f'raise ImportError("{message}")\nimport os\n'}
    path.write_text(splice(text, probe), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", "import probed"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == f"ImportError: {message}"


@pytest.mark.parametrize(
    "text, expected",
    [
        # No statement after the prelude: appended at the end (a missing final newline added).
        ('"""Only a docstring."""', (1, 1, '"""Only a docstring."""\nRAISE\n')),
        ("# just a comment\n", (1, 1, "# just a comment\nRAISE\n")),
        ("", (1, 0, "RAISE\n")),
        # The first statement shares its line with the docstring: before the next one.
        ('"""Doc."""; import os\nimport sys\n', (2, 2, "RAISE\nimport sys\n")),
    ],
)
def test_the_probe_in_files_with_nothing_to_insert_before(tmp_path, text, expected):
    path = write(tmp_path, text)
    probe = mutate(path, "1", "--probe")["probe"] if text else None
    if probe is None:
        probe = mutator.probe_of(mutator.read_source(str(path)))
    statement = f'raise ImportError("freezegate mutant probe: this copy of {path} was imported")'
    assert (probe["startLine"], probe["endLine"], probe["text"]) == (
        expected[0],
        expected[1],
        expected[2].replace("RAISE", statement),
    )
    probed = splice(text, probe)
    assert any(isinstance(node, ast.Raise) for node in ast.parse(probed).body)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--file", "missing.py", "--lines", "1"], "cannot read missing.py: No such file or directory: check the path"),
        (["--file", "bad.py", "--lines", "1"], "bad.py is not valid Python 3."),
        (["--file", "good.py", "--lines", "1,x"], "--lines '1,x' is not a list of line numbers and ranges"),
        (["--file", "good.py", "--lines", "3-2"], "--lines '3-2' is not a list"),
        (["--file", "good.py", "--lines", "0"], "--lines '0' is not a list"),
        (["--file", "good.py", "--lines", "9"], "--lines names line 9 but good.py has 2 lines"),
        (["--file", "good.py"], "--file and --lines are required"),
        (["--file", "good.py", "--lines", "1", "--jobs", "2"], "unknown argument '--jobs'"),
    ],
)
def test_refusals_exit_2_with_one_line_and_nothing_on_stdout(tmp_path, args, message):
    write(tmp_path, "x = 1\ny = 2\n", name="good.py")
    write(tmp_path, "def f(:\n    pass\n", name="bad.py")
    done = cli(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"freezegate mutants: {message}"), done.stderr
