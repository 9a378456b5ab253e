"""Regenerates test/fixtures/coverage/ from test/fixtures/py/billing with the real tools.

Run with Debian's interpreter (coverage.py 6.5, pytest 7.2, pytest-cov 4.0):

    /usr/bin/python3 scripts/make-coverage-fixtures.py

Every file is written by pytest-cov or `coverage json`, except report-7x-format*.json: only
coverage.py 6.5 is installable here, so those two reshape the 6.5 analysis of the same run
into the layouts of coverage.py 7.x's coverage/jsonreport.py (format 2: meta.format added
and executed_lines intersected with the statements; format 3: also per-file "functions" and
"classes" regions). See test/fixtures/coverage/README.md.
"""

import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "test" / "fixtures" / "py" / "billing"
ORACLE = ROOT / "test" / "fixtures" / "py" / "coverage_oracle.py"
OUT = ROOT / "test" / "fixtures" / "coverage"
PY = sys.executable


def env():
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("COVERAGE_", "COV_CORE_", "PYTEST_")) and k != "PYTHONPATH"
    }
    clean.update(PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0", PYTHONNOUSERSITE="1")
    return clean


def run(args, cwd, stdout=None):
    print("+", " ".join(str(a) for a in args), file=sys.stderr)
    subprocess.run(args, cwd=cwd, env=env(), check=True, stdout=stdout)


def pytest_cov(cwd, *extra):
    run(
        [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov", "--cov-context=test",
         "--cov-report=", "--cov-config=coveragerc-relative", *extra],
        cwd,
    )


def oracle(cwd, data_file, target):
    with open(target, "w", encoding="utf-8") as out:
        run([PY, str(ORACLE), data_file], cwd, stdout=out)


def regions(source):
    """Function and class regions the way coverage.py 7.6's regions.py defines them
    (body lines; methods count for their class), for the flat code of the fixture."""
    found = []

    def visit(node, prefix, klass):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = set(range(child.body[0].lineno, child.body[-1].end_lineno + 1))
                found.append(("function", prefix + child.name, lines))
                if klass is not None:
                    klass.update(lines)
            elif isinstance(child, ast.ClassDef):
                lines = set()
                found.append(("class", prefix + child.name, lines))
                visit(child, prefix + child.name + ".", lines)

    visit(ast.parse(source), "", None)
    return found


def seven_x_reports(cwd):
    """coverage.py 7.x JSON layouts, built from coverage.py 6.5's analysis of the same data."""
    import coverage
    from coverage.results import Numbers

    # coverage.py resolves the data file and relative source paths against the cwd.
    os.chdir(cwd)
    cov = coverage.Coverage(config_file="coveragerc-relative")
    cov.load()
    data = cov.get_data()

    def summary(statements, missing, excluded):
        nums = Numbers(
            n_files=1,
            n_statements=len(statements),
            n_missing=len(missing),
            n_excluded=len(excluded),
        )
        return {
            "covered_lines": nums.n_executed,
            "num_statements": nums.n_statements,
            "percent_covered": nums.pc_covered,
            "percent_covered_display": nums.pc_covered_str,
            "missing_lines": nums.n_missing,
            "excluded_lines": nums.n_excluded,
        }

    def part(analysis, contexts, within=None):
        keep = (lambda s: s) if within is None else (lambda s: s & within)
        statements = keep(set(analysis.statements))
        executed = keep(set(analysis.executed) & set(analysis.statements))
        missing = keep(set(analysis.missing))
        excluded = keep(set(analysis.excluded))
        return {
            "executed_lines": sorted(executed),
            "summary": summary(statements, missing, excluded),
            "missing_lines": sorted(missing),
            "excluded_lines": sorted(excluded),
            "contexts": contexts,
        }

    files2, files3 = {}, {}
    for filename in sorted(data.measured_files()):
        analysis = cov._analyze(filename)
        relative = os.path.relpath(filename, cwd) if os.path.isabs(filename) else filename
        contexts = {
            str(k): sorted(v) for k, v in sorted(data.contexts_by_lineno(filename).items())
        }
        files2[relative] = part(analysis, contexts)
        entry = part(analysis, contexts)
        source = (cwd / relative).read_text(encoding="utf-8")
        total = set(range(1, len(source.splitlines()) + 1))
        for kind, plural in (("function", "functions"), ("class", "classes")):
            outside = set(total)
            entry[plural] = {}
            for region_kind, name, lines in regions(source):
                if region_kind != kind:
                    continue
                outside -= lines
                entry[plural][name] = part(analysis, contexts, lines)
            entry[plural][""] = part(analysis, contexts, outside)
        files3[relative] = entry

    def totals(files):
        statements = sum(f["summary"]["num_statements"] for f in files.values())
        missing = sum(f["summary"]["missing_lines"] for f in files.values())
        excluded = sum(f["summary"]["excluded_lines"] for f in files.values())
        nums = Numbers(n_files=len(files), n_statements=statements, n_missing=missing,
                       n_excluded=excluded)
        return {
            "covered_lines": nums.n_executed,
            "num_statements": nums.n_statements,
            "percent_covered": nums.pc_covered,
            "percent_covered_display": nums.pc_covered_str,
            "missing_lines": nums.n_missing,
            "excluded_lines": nums.n_excluded,
        }

    def meta(fmt, version):
        return {"format": fmt, "version": version, "timestamp": "2025-01-15T10:20:30.123456",
                "branch_coverage": False, "show_contexts": True}

    return (
        {"meta": meta(2, "7.4.4"), "files": files2, "totals": totals(files2)},
        {"meta": meta(3, "7.6.1"), "files": files3, "totals": totals(files3)},
    )


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        lines = Path(tmp) / "lines"
        shutil.copytree(PROJECT, lines)
        pytest_cov(lines)
        shutil.copyfile(lines / ".coverage", OUT / "lines.coverage")
        oracle(lines, ".coverage", OUT / "lines.expected.json")
        run([PY, "-m", "coverage", "json", "--rcfile=coveragerc-relative", "--show-contexts",
             "-o", str(OUT / "report-6.5.json")], lines)
        run([PY, "-m", "coverage", "json", "--rcfile=coveragerc-relative",
             "-o", str(OUT / "report-6.5-no-contexts.json")], lines)
        here = os.getcwd()
        try:
            format2, format3 = seven_x_reports(lines)
        finally:
            os.chdir(here)
        for name, report in (("report-7x-format2.json", format2),
                             ("report-7x-format3.json", format3)):
            with open(OUT / name, "w", encoding="utf-8") as out:
                json.dump(report, out, indent=1)
                out.write("\n")

        branch = Path(tmp) / "branch"
        shutil.copytree(PROJECT, branch)
        pytest_cov(branch, "--cov-branch")
        shutil.copyfile(branch / ".coverage", OUT / "branch.coverage")
        oracle(branch, ".coverage", OUT / "branch.expected.json")


if __name__ == "__main__":
    main()
