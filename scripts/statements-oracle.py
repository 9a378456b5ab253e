"""coverage.py's own answer to "which statement does each line belong to", as JSON.

The reference that src/languages/python/statements.ts is checked against. Run it with Debian's
python3 (coverage.py 6.5.0 on Python 3.11), the interpreter whose data files freezegate reads:

    /usr/bin/python3 scripts/statements-oracle.py FILE.py ...        # paths as arguments
    /usr/bin/python3 scripts/statements-oracle.py --files-from -     # paths, one per line
    /usr/bin/python3 scripts/statements-oracle.py --texts-json -     # [{"id", "text"}, ...]

Writes one JSON object per line (JSON Lines), in input order:
    {"id": ..., "status": "ok", "lines": N, "answers": [a1, ..., aN]}
    {"id": ..., "status": "skipped", "reason": "..."}
where a_l is coverage.py's first line of the statement containing line l, or null when line l
belongs to no statement. "skipped" means coverage.py itself cannot parse the file (it is not
Python 3.11: Python 2 files, deliberately broken test data) or cannot read it; the reason
says which. Such files have no answer.

Agreement is defined per line: coverage's answer for line l is `first_line(l)` when that is in
`statements`, else null. Nothing is excluded (no exclusion regex), so `# pragma: no cover`
does not change the answer. One deliberate deviation: coverage.py 6.5 maps line 1 to the
module's first statement on Python >= 3.10 (PYBEHAVIOR.module_firstline_1) so that an executed
"line 1" of a module is credited somewhere; that is a fix-up for recorded data, not a claim
that a comment on line 1 is code, so it is switched off here.
"""

import json
import sys
import warnings

import coverage
import coverage.env
from coverage.exceptions import NoSource, NotPython
from coverage.python import PythonParser, get_python_source

coverage.env.PYBEHAVIOR.module_firstline_1 = False


def normalize_text(text):
    """The text coverage.py would parse if `text` were the content of a file on disk."""
    # Mirrors coverage.python.get_python_source + read_python_source.
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", " ")
    if text.startswith("\ufeff"):
        text = text[1:]
    if text and not text.endswith("\n"):
        text += "\n"
    return text


def answers_for(text, filename):
    if not text:
        return 0, []
    parser = PythonParser(text=text, filename=filename, exclude=None)
    parser.parse_source()
    # `lines` of the text as coverage.py numbers them; the text ends with "\n", so the last
    # split element is the empty remainder, not a line.
    count = len(text.split("\n")) - 1
    statements = parser.statements
    answers = []
    for line in range(1, count + 1):
        first = parser.first_line(line)
        answers.append(first if first in statements else None)
    return count, answers


def one(ident, text):
    try:
        count, answers = answers_for(text, str(ident))
    except NotPython as err:
        return {"id": ident, "status": "skipped", "reason": str(err).splitlines()[0]}
    except (SyntaxError, ValueError, RecursionError, MemoryError) as err:
        # compile() can also refuse with ValueError (null bytes) or blow the stack.
        return {"id": ident, "status": "skipped", "reason": f"{type(err).__name__}: {err}"}
    return {"id": ident, "status": "ok", "lines": count, "answers": answers}


def main(argv):
    items = []
    if argv[:1] == ["--texts-json"]:
        source = sys.stdin if argv[1:2] in (["-"], []) else open(argv[1], encoding="utf-8")
        for entry in json.load(source):
            items.append((entry["id"], lambda e=entry: normalize_text(e["text"])))
    else:
        paths = argv
        if argv[:1] == ["--files-from"]:
            source = sys.stdin if argv[1:2] in (["-"], []) else open(argv[1], encoding="utf-8")
            paths = [line.rstrip("\n") for line in source if line.strip()]
        for path in paths:
            items.append((path, lambda p=path: get_python_source(p)))
    if not items:
        print(__doc__, file=sys.stderr)
        return 2
    # Compiling emits SyntaxWarnings ("is" with a literal, invalid escapes) on stderr.
    warnings.simplefilter("ignore")
    out = sys.stdout
    for ident, load in items:
        try:
            text = load()
        except (NoSource, OSError, UnicodeError, SyntaxError, LookupError) as err:
            # A bad coding cookie is a SyntaxError from tokenize.detect_encoding.
            result = {"id": ident, "status": "skipped", "reason": f"unreadable: {err}"}
        else:
            result = one(ident, text)
        out.write(json.dumps(result, separators=(",", ":")))
        out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
