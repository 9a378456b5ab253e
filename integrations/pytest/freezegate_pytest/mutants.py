"""Mutants of chosen lines of one Python file, for ``freezegate impact --mutants``.

Run as ``python -m freezegate_pytest.mutants --file PATH --lines 3,7,12-15 [--probe]``. It
prints ONE JSON object: every mutant of the statements whose line (the line coverage.py
reports for the statement) is in ``--lines``, each as the lines to replace and their new
text. The caller splices whole lines, so no column arithmetic crosses a language boundary.

Mutations are made with Python's own ``ast`` and written into the original text: only the
operator, constant or condition changes, the rest of the line (comments, formatting, other
lines) stays as it was. A mutant is kept only when the mutated file parses to exactly the
intended tree (parentheses are added where precedence would otherwise regroup the
expression) and compiles; the others are counted in ``unmutable``.

``--probe`` adds an edit that makes importing the module raise ImportError, so that the
caller can prove its tests import this copy of the file and not an installed one.

Errors (unreadable file, syntax error, bad ``--lines``) exit 2 with one line on stderr.
"""

from __future__ import annotations

import ast
import bisect
import io
import json
import re
import sys
import tokenize
import warnings
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

VERSION = 1
KINDS = ("operator", "comparison", "constant", "condition", "return")

_BINARY = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
    ast.BitXor: ast.BitAnd,
}
_BINARY_TEXT = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
}
_BOOL = {ast.And: ast.Or, ast.Or: ast.And}
_BOOL_TEXT = {ast.And: "and", ast.Or: "or"}
_COMPARE = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
_COMPARE_TEXT = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
# Operands that never need parentheses of their own when their operator changes.
_ATOMS = (
    ast.Name,
    ast.Constant,
    ast.Attribute,
    ast.Subscript,
    ast.Call,
    ast.List,
    ast.Tuple,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.JoinedStr,
)
# Fields of statements that hold statements (visited as statements of their own) or that are
# never mutated (decorators, annotations).
_BODY_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
_DESCRIPTION_WIDTH = 60
# Where edits at one offset go, first to last: an opening parenthesis around the mutated
# expression, one around an operand, an operand's closing one, the change itself, the
# expression's closing one.
_OPEN, _OPEN_OPERAND, _CLOSE_OPERAND, _CHANGE, _CLOSE = range(5)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LINES_ITEM = re.compile(r"^(\d+)(?:-(\d+))?$")


#: (start offset, rank among edits at that offset, end offset, new text)
Edit = Tuple[int, int, int, str]
#: Where a statement sits in the tree, as (body field, index) steps from the module.
_Path = Tuple[Tuple[str, int], ...]


class MutantsError(Exception):
    """The run cannot happen; the message is one line that says what and how to fix it."""


@dataclass
class Source:
    """One file's text, split the way Python splits source lines (``\\r\\n``, ``\\r``, ``\\n``)."""

    path: str
    text: str  # without a byte order mark
    bom: str  # "\ufeff" when the file starts with one, else ""
    line_starts: List[int]  # character offset of each line's first character
    encoded: List[bytes]  # each line's UTF-8 bytes, for ast's byte columns

    @classmethod
    def of(cls, path: str, text: str) -> "Source":
        bom = ""
        if text.startswith("\ufeff"):
            bom, text = "\ufeff", text[1:]
        starts = [0]
        starts.extend(match.end() for match in _LINE_BREAK.finditer(text))
        if starts[-1] == len(text) and len(starts) > 1:
            starts.pop()  # a final line break does not start another line
        if text == "":
            starts = []
        ends = starts[1:] + [len(text)]
        encoded = [text[start:end].encode("utf-8") for start, end in zip(starts, ends)]
        return cls(path, text, bom, starts, encoded)

    @property
    def line_count(self) -> int:
        return len(self.line_starts)

    def offset(self, lineno: int, byte_col: int) -> int:
        """The character offset of ast's (1-based line, UTF-8 byte column)."""
        chars = len(self.encoded[lineno - 1][:byte_col].decode("utf-8"))
        return self.line_starts[lineno - 1] + chars

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)

    def line_end(self, lineno: int) -> int:
        """The offset just past line ``lineno``'s line break."""
        return self.line_starts[lineno] if lineno < self.line_count else len(self.text)

    def lines_text(self, first: int, last: int, text: Optional[str] = None) -> str:
        """Lines ``first``..``last`` of ``text`` (the original by default), as written."""
        whole = self.text if text is None else text
        out = whole[self.line_starts[first - 1] : self.line_end(last) + len(whole) - len(self.text)]
        return (self.bom + out) if first == 1 else out


def parse_text(text: str) -> str:
    """Text ready for ``ast``: Python reads ``\\r\\n`` and ``\\r`` as ``\\n`` too."""
    return _LINE_BREAK.sub("\n", text)


def read_source(path: str) -> Source:
    """The file's text, decoded as Python decodes it (a coding cookie, a byte order mark)."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        raise MutantsError(
            f"cannot read {path}: {exc.strerror or exc}: check the path (relative to the directory "
            "the command runs in)"
        ) from None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        text = raw.decode("utf-8" if encoding == "utf-8-sig" else encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        raise MutantsError(
            f"cannot decode {path}: {_one_line(exc)}: fix the file's encoding or its coding line"
        ) from None
    if encoding not in ("utf-8", "utf-8-sig"):
        # The caller splices UTF-8 text into the file: only a file that reads the same as
        # UTF-8 (plain ASCII) survives that.
        try:
            same = raw.decode("utf-8") == text
        except UnicodeDecodeError:
            same = False
        if not same:
            raise MutantsError(
                f"{path} is encoded as {encoding}, and mutants are written as UTF-8: convert the "
                "file to UTF-8 (and drop its coding line)"
            )
    return Source.of(path, text)


def parse_lines(spec: str) -> List[Tuple[int, int]]:
    """``3,7,12-15`` as inclusive ranges."""
    ranges = []
    for item in spec.split(","):
        match = _LINES_ITEM.match(item.strip())
        first = int(match.group(1)) if match else 0
        last = int(match.group(2) or first) if match else 0
        if not match or first < 1 or last < first:
            raise MutantsError(
                f"--lines {spec!r} is not a list of line numbers and ranges: pass positive numbers "
                "and first-last ranges separated by commas, for example 3,7,12-15"
            )
        ranges.append((first, last))
    return ranges


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _logical_first_lines(path: str, text: str) -> Dict[int, int]:
    """Physical line -> first line of its logical line, for logical lines over several lines.

    coverage.py reports a statement at the first line of the logical line it starts on (its
    parser builds the same map from the same tokens), so ``x = [\\n 1,\\n]; y = 2`` reports
    ``y`` at line 1, not at line 3 where its node starts.
    """
    first_lines: Dict[int, int] = {}
    first: Optional[int] = None
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError) as exc:
        raise MutantsError(
            f"cannot split {path} into statements: {_one_line(exc)}: report this file to freezegate"
        ) from None
    for tok in tokens:
        if tok.type == tokenize.NEWLINE:
            if first is not None and tok.end[0] != first:
                for line in range(first, tok.end[0] + 1):
                    first_lines[line] = first
            first = None
        elif first is None and tok.type not in (
            tokenize.COMMENT,
            tokenize.NL,
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.ENCODING,
            tokenize.ENDMARKER,
        ):
            first = tok.start[0]
    return first_lines


# --- where a node sits, and what replacing it means for the tree -------------------------


@dataclass
class Slot:
    """A place in the tree: ``parent.field`` or ``parent.field[index]``."""

    parent: ast.AST
    field: str
    index: Optional[int] = None

    def get(self) -> ast.AST:
        value = getattr(self.parent, self.field)
        return value if self.index is None else value[self.index]

    def put(self, node: ast.AST) -> None:
        if self.index is None:
            setattr(self.parent, self.field, node)
        else:
            getattr(self.parent, self.field)[self.index] = node


@dataclass
class Candidate:
    line: int
    kind: str
    order: Tuple[int, ...]
    # Swaps the tree to the mutated form and returns the function that swaps it back.
    mutate_tree: Callable[[], Callable[[], None]]
    # The text edits of each attempt, fewest parentheses first.
    attempts: List[List[Edit]]
    describe: Callable[[], str]
    # The innermost statement (or except clause, or match case) whose own part holds the
    # mutated node: the mutated file must differ from the original there and only there.
    holder: ast.AST


def _span(source: Source, node: ast.AST) -> Tuple[int, int]:
    return (
        source.offset(node.lineno, node.col_offset),
        source.offset(node.end_lineno, node.end_col_offset),
    )


def _code_of(text: str) -> str:
    """``text`` with comments blanked (a gap between operands holds no strings)."""
    return re.sub(r"#[^\r\n]*", lambda m: " " * len(m.group(0)), text)


def _operator_in_gap(text: str, start: int, end: int, expected: str) -> Optional[Tuple[int, int]]:
    """Where the operator sits between two operands (which may close and open parentheses)."""
    gap = _code_of(text[start:end])
    places = [i for i, ch in enumerate(gap) if not ch.isspace() and ch not in "()\\"]
    if not places:
        return None
    first, last = places[0], places[-1] + 1
    if " ".join(gap[first:last].split()) != expected:
        return None
    return start + first, start + last


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= _DESCRIPTION_WIDTH:
        return text
    half = (_DESCRIPTION_WIDTH - 5) // 2
    return f"{text[:half]} ... {text[-half:]}"


def _unparse(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # an exotic node ast cannot print: the description stays readable
        return "..."


def _describe(before: str, after: str) -> str:
    return f"`{_shorten(before)}` -> `{_shorten(after)}`"


class _Collector:
    """Walks a module and gathers every candidate mutation on the chosen lines."""

    def __init__(self, source: Source, tree: ast.Module, wanted: Callable[[int], bool]):
        self.source = source
        self.tree = tree
        self.wanted = wanted
        self.first_lines = _logical_first_lines(source.path, parse_text(source.text))
        self.candidates: List[Candidate] = []
        self.counter = 0
        self.holder: ast.AST = tree

    def line_of(self, lineno: int) -> int:
        return self.first_lines.get(lineno, lineno)

    # -- statements

    def body(self, statements: Sequence[ast.stmt], docstring_allowed: bool) -> None:
        for index, statement in enumerate(statements):
            if index == 0 and docstring_allowed and _is_docstring(statement):
                continue
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        if _is_future_import(node):
            return
        line = self.line_of(node.lineno)
        if isinstance(node, ast.If):
            checking = _type_checking(node.test)
            if checking is not None:
                # The branch only type checkers read is no behaviour to test; the other runs.
                self.body(node.orelse if checking else node.body, False)
                return
        is_def = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        self.holder = node
        for field, value in ast.iter_fields(node):
            if field in _BODY_FIELDS or field in ("decorator_list", "returns"):
                continue
            if field == "annotation" and isinstance(node, ast.AnnAssign):
                continue
            if field == "args" and is_def:
                self.arguments(value, line)
                continue
            self.children(node, field, value, line)
        if self.wanted(line):
            self.holder = node
            self.statement_mutations(node, line)
        docstrings = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        for field in _BODY_FIELDS:
            value = getattr(node, field, None)
            if not value:
                continue
            if field == "handlers":
                for handler in value:
                    handler_line = self.line_of(handler.lineno)
                    if handler.type is not None:
                        self.holder = handler
                        self.expression(handler.type, Slot(handler, "type"), handler_line)
                    self.body(handler.body, False)
            elif field == "cases":
                for case in value:
                    # Patterns are not expressions; a guard is, reported on the case's line.
                    if case.guard is not None:
                        self.holder = case
                        guard_line = self.line_of(case.pattern.lineno)
                        self.expression(case.guard, Slot(case, "guard"), guard_line)
                    self.body(case.body, False)
            else:
                self.body(value, docstrings and field == "body")

    def arguments(self, args: ast.arguments, line: int) -> None:
        """Defaults are evaluated where the function is defined; annotations are not mutated."""
        self.children(args, "defaults", args.defaults, line)
        self.children(args, "kw_defaults", args.kw_defaults, line)

    def children(self, parent: ast.AST, field: str, value: object, line: int) -> None:
        if isinstance(value, ast.AST):
            self.expression(value, Slot(parent, field), line)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, ast.AST):
                    self.expression(item, Slot(parent, field, index), line)

    # -- expressions

    def expression(self, node: ast.AST, slot: Slot, line: int) -> None:
        if isinstance(node, ast.JoinedStr):
            return  # f-string internals
        if self.wanted(line) and isinstance(node, ast.expr):
            self.expression_mutations(node, slot, line)
        if isinstance(node, ast.Lambda):
            self.arguments(node.args, line)
            self.children(node, "body", node.body, line)
            return
        for field, value in ast.iter_fields(node):
            if isinstance(node, ast.comprehension) and field == "ifs" and self.wanted(line):
                for index in range(len(value)):
                    self.condition(Slot(node, "ifs", index), line)
            self.children(node, field, value, line)

    # -- the mutations

    def add(self, line, kind, position_node, mutate_tree, attempts, describe, sub=0) -> None:
        self.counter += 1
        order = (
            line,
            position_node.lineno,
            position_node.col_offset,
            KINDS.index(kind),
            -position_node.end_lineno,
            -position_node.end_col_offset,
            sub,
            self.counter,
        )
        candidate = Candidate(line, kind, order, mutate_tree, attempts, describe, self.holder)
        self.candidates.append(candidate)

    def statement_mutations(self, node: ast.stmt, line: int) -> None:
        if isinstance(node, ast.AugAssign) and type(node.op) in _BINARY:
            self.aug_assign(node, line)
        if isinstance(node, (ast.If, ast.While, ast.Assert)):
            self.condition(Slot(node, "test"), line)
        if isinstance(node, ast.Return) and node.value is not None:
            if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                self.return_none(node, line)

    def expression_mutations(self, node: ast.expr, slot: Slot, line: int) -> None:
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            self.binary(node, line)
        elif isinstance(node, ast.BoolOp):
            self.boolean(node, line)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
            self.unary(node, slot, line)
        elif isinstance(node, ast.Compare):
            for index, op in enumerate(node.ops):
                if type(op) in _COMPARE:
                    self.compare(node, index, line)
        elif isinstance(node, ast.Constant):
            self.constant(node, line)
        if isinstance(node, ast.IfExp):
            self.condition(Slot(node, "test"), line)

    def _wraps(
        self, node: ast.AST, operands: Sequence[ast.AST], edits: List[Edit]
    ) -> List[List[Edit]]:
        """The attempts for an operator change: as written, then with parentheses around the
        mutated expression, around its compound operands, and around both."""
        start, end = _span(self.source, node)
        outer = [(start, _OPEN, start, "("), (end, _CLOSE, end, ")")]
        inner: List[Edit] = []
        for operand in operands:
            if not isinstance(operand, _ATOMS):
                first, last = _span(self.source, operand)
                inner += [(first, _OPEN_OPERAND, first, "("), (last, _CLOSE_OPERAND, last, ")")]
        attempts = [edits, edits + outer]
        if inner:
            attempts += [edits + inner, edits + outer + inner]
        return attempts

    def _between(self, left: ast.AST, right: ast.AST, old: str, new: str) -> Optional[Edit]:
        """The edit that turns operator ``old`` between two operands into ``new``."""
        place = _operator_in_gap(
            self.source.text, _span(self.source, left)[1], _span(self.source, right)[0], old
        )
        return None if place is None else (place[0], _CHANGE, place[1], new)

    def _operator(self, line: int, kind: str, node: ast.AST, edits: List[Optional[Edit]],
                  slot: Slot, new_op: ast.AST, operands: Sequence[ast.AST], sub: int = 0) -> None:
        if any(edit is None for edit in edits):
            self.add_unmutable(line, kind, node)
            return
        found = [edit for edit in edits if edit is not None]

        def mutate() -> Callable[[], None]:
            old = slot.get()
            slot.put(new_op)
            return lambda: slot.put(old)

        attempts = self._wraps(node, operands, found) if operands else [found]
        self.add(line, kind, node, mutate, attempts, self._describer(node, mutate), sub)

    def binary(self, node: ast.BinOp, line: int) -> None:
        old, new = type(node.op), _BINARY[type(node.op)]
        edit = self._between(node.left, node.right, _BINARY_TEXT[old], _BINARY_TEXT[new])
        self._operator(line, "operator", node, [edit], Slot(node, "op"), new(),
                       [node.left, node.right])

    def aug_assign(self, node: ast.AugAssign, line: int) -> None:
        old, new = type(node.op), _BINARY[type(node.op)]
        old_text, new_text = _BINARY_TEXT[old] + "=", _BINARY_TEXT[new] + "="
        edit = self._between(node.target, node.value, old_text, new_text)
        self._operator(line, "operator", node, [edit], Slot(node, "op"), new(), [])

    def boolean(self, node: ast.BoolOp, line: int) -> None:
        old, new = _BOOL_TEXT[type(node.op)], _BOOL[type(node.op)]
        edits = [
            self._between(left, right, old, _BOOL_TEXT[new])
            for left, right in zip(node.values, node.values[1:])
        ]
        self._operator(line, "operator", node, edits, Slot(node, "op"), new(), node.values)

    def compare(self, node: ast.Compare, index: int, line: int) -> None:
        old, new = type(node.ops[index]), _COMPARE[type(node.ops[index])]
        left = node.left if index == 0 else node.comparators[index - 1]
        edit = self._between(left, node.comparators[index], _COMPARE_TEXT[old], _COMPARE_TEXT[new])
        self._operator(line, "comparison", node, [edit], Slot(node, "ops", index), new(),
                       [node.left, *node.comparators], sub=index)

    def unary(self, node: ast.UnaryOp, slot: Slot, line: int) -> None:
        start, _ = _span(self.source, node)
        keyword = "not" if isinstance(node.op, ast.Not) else "-"
        text = self.source.text
        if not text.startswith(keyword, start):
            self.add_unmutable(line, "operator", node)
            return
        end = start + len(keyword)
        while end < len(text) and text[end] in " \t\f":
            end += 1
        edits = [(start, _CHANGE, end, "")]

        def mutate() -> Callable[[], None]:
            slot.put(node.operand)
            return lambda: slot.put(node)

        before = _unparse(node)
        self.add(line, "operator", node, mutate, [edits],
                 lambda: _describe(before, _unparse(node.operand)))

    def constant(self, node: ast.Constant, line: int) -> None:
        value = node.value
        if isinstance(value, bool):
            new_value: object = not value
        elif isinstance(value, int):
            new_value = value + 1
        elif isinstance(value, float):
            new_value = value + 1.0
        else:
            return  # strings, bytes, None, Ellipsis, complex numbers
        start, end = _span(self.source, node)
        try:
            new_text = ast.unparse(ast.Constant(new_value))
        except ValueError:  # an integer too long to print
            self.add_unmutable(line, "constant", node)
            return

        def mutate() -> Callable[[], None]:
            node.value = new_value
            return lambda: setattr(node, "value", value)

        edits = [(start, _CHANGE, end, new_text)]
        wrapped = edits + [(start, _OPEN, start, "("), (end, _CLOSE, end, ")")]
        before = self.source.text[start:end]
        self.add(line, "constant", node, mutate, [edits, wrapped],
                 lambda: _describe(before, new_text))

    def condition(self, slot: Slot, line: int) -> None:
        test = slot.get()
        start, end = _span(self.source, test)
        negated = ast.UnaryOp(op=ast.Not(), operand=test)

        def mutate() -> Callable[[], None]:
            slot.put(negated)
            return lambda: slot.put(test)

        before = _unparse(test)
        edits = [(start, _OPEN, start, "not ("), (end, _CLOSE, end, ")")]
        self.add(line, "condition", test, mutate, [edits],
                 lambda: _describe(before, f"not ({before})"))

    def return_none(self, node: ast.Return, line: int) -> None:
        value = node.value
        start, end = _span(self.source, value)

        def mutate() -> Callable[[], None]:
            node.value = ast.Constant(None)
            return lambda: setattr(node, "value", value)

        before = _unparse(value)
        self.add(line, "return", value, mutate, [[(start, _CHANGE, end, "None")]],
                 lambda: _describe(f"return {before}", "return None"))

    def add_unmutable(self, line: int, kind: str, node: ast.AST) -> None:
        """A mutation whose operator could not be found in the text: counted, never written."""
        self.add(line, kind, node, lambda: (lambda: None), [], lambda: "")

    def _describer(self, node: ast.AST, mutate: Callable[[], Callable[[], None]]):
        before = _unparse(node)

        def describe() -> str:
            restore = mutate()
            try:
                return _describe(before, _unparse(node))
            finally:
                restore()

        return describe


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _is_future_import(node: ast.stmt) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def _type_checking(test: ast.expr) -> Optional[bool]:
    """True for ``TYPE_CHECKING``, False for ``not TYPE_CHECKING``, None for anything else."""

    def named(node: ast.expr) -> bool:
        return (isinstance(node, ast.Name) and node.id == "TYPE_CHECKING") or (
            isinstance(node, ast.Attribute) and node.attr == "TYPE_CHECKING"
        )

    if named(test):
        return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and named(test.operand):
        return False
    return None


def _apply(text: str, edits: List[Edit]) -> str:
    """Edits are (start, rank, end, new text); at one offset, lower ranks come first."""
    out, cursor = [], 0
    for start, _, end, new in sorted(edits, key=lambda e: (e[0], e[1])):
        out.append(text[cursor:start])
        out.append(new)
        cursor = max(cursor, end)
    out.append(text[cursor:])
    return "".join(out)


def _compiles(path: str, tree: ast.Module) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(tree, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, TypeError, RecursionError):
        return False
    return True


def _parse(path: str, text: str) -> Optional[ast.Module]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(parse_text(text), filename=path)
    except (SyntaxError, ValueError, RecursionError):
        return None




def _holder_paths(tree: ast.Module) -> Dict[int, _Path]:
    """Where each statement, except clause and match case sits, as (field, index) steps."""
    paths: Dict[int, _Path] = {}

    def walk(node: ast.AST, path: _Path) -> None:
        paths[id(node)] = path
        for field in _BODY_FIELDS:
            items = getattr(node, field, None)
            if isinstance(items, list):
                for index, child in enumerate(items):
                    walk(child, path + ((field, index),))

    walk(tree, ())
    return paths


def _shape_and_header(tree: ast.Module, path: _Path) -> Optional[str]:
    """The holder at ``path`` without its nested statements (their count only), and the
    length of every list of statements on the way to it.

    The edits of a mutant are balanced (operators, parentheses, numbers, ``not (...)``,
    ``None``) and lie inside the holder's own text, so the text around them tokenizes as
    before: comparing this much of the trees is comparing all of them, without printing a
    large file's whole tree once per mutant.
    """
    parts = []
    node: ast.AST = tree
    for field, index in path:
        items = getattr(node, field, None)
        if not isinstance(items, list) or index >= len(items):
            return None
        parts.append(f"{field}:{len(items)}")
        node = items[index]
    parts.append(type(node).__name__)
    for field, value in ast.iter_fields(node):
        if field in _BODY_FIELDS:
            parts.append(f"{field}:{len(value)}")
        elif isinstance(value, list):
            parts.append(f"{field}=[{', '.join(_dump(item) for item in value)}]")
        else:
            parts.append(f"{field}={_dump(value)}")
    return "|".join(parts)


def _dump(value: object) -> str:
    return ast.dump(value) if isinstance(value, ast.AST) else repr(value)


def _realise(source: Source, tree: ast.Module, path: _Path, candidate: Candidate) -> Optional[dict]:
    """The first attempt whose text parses to the intended tree and compiles, as a mutant."""
    if not candidate.attempts:
        return None
    original = _shape_and_header(tree, path)
    restore = candidate.mutate_tree()
    try:
        expected = _shape_and_header(tree, path)
    finally:
        restore()
    if expected == original:
        return None  # the mutation changes nothing (a float too large to move by 1.0)
    for edits in candidate.attempts:
        mutated = _apply(source.text, edits)
        if mutated == source.text:
            continue
        parsed = _parse(source.path, mutated)
        if (
            parsed is None
            or len(parsed.body) != len(tree.body)
            or _shape_and_header(parsed, path) != expected
            or not _compiles(source.path, parsed)
        ):
            continue
        first = source.line_of(min(edit[0] for edit in edits))
        last = source.line_of(max(edit[2] for edit in edits))
        return {
            "line": candidate.line,
            "kind": candidate.kind,
            "description": candidate.describe(),
            "startLine": first,
            "endLine": last,
            "text": source.lines_text(first, last, mutated),
        }
    return None


def mutants_of(source: Source, ranges: Sequence[Tuple[int, int]]) -> Tuple[List[dict], int]:
    """Every mutant of the statements reported on a line in ``ranges``, and how many failed."""
    tree = _parse_or_refuse(source)

    def wanted(line: int) -> bool:
        return any(first <= line <= last for first, last in ranges)

    collector = _Collector(source, tree, wanted)
    collector.body(tree.body, True)
    paths = _holder_paths(tree)
    mutants, unmutable = [], 0
    for candidate in sorted(collector.candidates, key=lambda c: c.order):
        mutant = _realise(source, tree, paths[id(candidate.holder)], candidate)
        if mutant is None:
            unmutable += 1
        else:
            mutants.append(mutant)
    return mutants, unmutable


def _parse_or_refuse(source: Source) -> ast.Module:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(parse_text(source.text), filename=source.path)
            compile(tree, source.path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        version = f"{sys.version_info[0]}.{sys.version_info[1]}"
        raise MutantsError(
            f"{source.path} is not valid Python {version}: {exc.msg} (line {exc.lineno}): fix the "
            "file, or run the mutants with the Python version the project is written for"
        ) from None
    except (ValueError, RecursionError) as exc:
        raise MutantsError(
            f"{source.path} cannot be parsed: {_one_line(exc)}: fix the file"
        ) from None
    return tree


def probe_of(source: Source) -> dict:
    """An edit that makes importing the module raise ImportError, placed after its docstring
    and ``from __future__`` imports, at the top level."""
    tree = _parse_or_refuse(source)
    body = tree.body
    prelude = 0
    if body and _is_docstring(body[0]):
        prelude = 1
    while prelude < len(body) and _is_future_import(body[prelude]):
        prelude += 1
    first_lines = _logical_first_lines(source.path, parse_text(source.text))
    message = f"freezegate mutant probe: this copy of {source.path} was imported"
    statement = f"raise ImportError({json.dumps(message, ensure_ascii=False)})"
    match = _LINE_BREAK.search(source.text)
    eol = match.group(0) if match else "\n"
    before = None
    for node in body[prelude:]:
        # Before the first top-level statement that starts its own line.
        if node.col_offset == 0 and first_lines.get(node.lineno, node.lineno) == node.lineno:
            before = node.lineno
            break
    if before is not None:
        start_line = end_line = before
        # A byte order mark stays the file's first character.
        line = source.text[source.line_starts[before - 1] : source.line_end(before)]
        text = (source.bom if before == 1 else "") + statement + eol + line
        at = source.line_starts[before - 1]
        probed = source.text[:at] + statement + eol + source.text[at:]
    elif source.line_count:
        start_line = end_line = source.line_count
        last = source.lines_text(start_line, start_line)
        ending = "" if last.endswith(("\n", "\r")) else eol
        text = last + ending + statement + eol
        probed = source.text + ending + statement + eol
    else:
        start_line, end_line = 1, 0  # an empty file: insert before line 1
        text = source.bom + statement + eol
        probed = statement + eol
    parsed = _parse(source.path, probed)
    if (
        parsed is None
        or len(parsed.body) != len(body) + 1
        or not any(isinstance(node, ast.Raise) for node in parsed.body[prelude:])
        or not _compiles(source.path, parsed)
    ):
        raise MutantsError(
            f"cannot place the import probe in {source.path}: report this file to freezegate"
        )
    return {"startLine": start_line, "endLine": end_line, "text": text}


class _Parser:
    """The command line: ``--file PATH --lines SPEC [--probe]``; refusals are one line."""

    USAGE = "usage: python -m freezegate_pytest.mutants --file PATH --lines 3,7,12-15 [--probe]"

    @classmethod
    def parse(cls, argv: Sequence[str]) -> Tuple[str, str, bool]:
        path: Optional[str] = None
        lines: Optional[str] = None
        probe = False
        args = list(argv)
        while args:
            arg = args.pop(0)
            name, has_value, value = arg.partition("=")
            if name in ("--file", "--lines"):
                if not has_value:
                    if not args:
                        raise MutantsError(f"{name} needs a value ({cls.USAGE})")
                    value = args.pop(0)
                if name == "--file":
                    path = value
                else:
                    lines = value
            elif arg == "--probe":
                probe = True
            else:
                raise MutantsError(f"unknown argument {arg!r} ({cls.USAGE})")
        if path is None or lines is None:
            raise MutantsError(f"--file and --lines are required ({cls.USAGE})")
        return path, lines, probe


def run(argv: Sequence[str]) -> dict:
    path, lines_spec, probe = _Parser.parse(argv)
    ranges = parse_lines(lines_spec)
    source = read_source(path)
    highest = max(last for _, last in ranges)
    if highest > source.line_count:
        raise MutantsError(
            f"--lines names line {highest} but {path} has {source.line_count} lines: the coverage "
            "data is older than the file; run the tests again to record it"
        )
    mutants, unmutable = mutants_of(source, ranges)
    result = {"version": VERSION, "file": path, "mutants": mutants}
    if probe:
        result["probe"] = probe_of(source)
    result["unmutable"] = unmutable
    return result


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        result = run(sys.argv[1:] if argv is None else argv)
    except MutantsError as exc:
        sys.stderr.write(f"freezegate mutants: {exc}\n")
        return 2
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
