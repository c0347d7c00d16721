"""XLA0xx: the file itself (it could not be read or parsed)."""

from __future__ import annotations

from collections.abc import Iterator

from flake8_xla.context import Finding
from flake8_xla.rules.base import Rule
from flake8_xla.sources import MESSAGE, UNREADABLE


class UnreadableFile(Rule):
    """XLA001: a file that could not be read, decoded or parsed, so nothing in it was checked.

    Source: the Python language reference, "Encoding declarations" (a source file
    is UTF-8 unless a coding line in its first two lines says otherwise; Python
    refuses a file that is not valid in that encoding), and flake8's E902/E999,
    which report unreadable and unparsable files without running any plugin.
    """

    code = UNREADABLE
    fix = "none"
    file_rule = True
    name = "unreadable-file"
    message = MESSAGE
    level = "error"
    explanation = """\
A linter that cannot parse a file has checked nothing in it. flake8 reports such a
file as E999 (syntax error) or E902 (unreadable), but `flake8 --select=XLA` and
the `flake8-xla` command select no E code, so the file used to pass with exit
status 0. `flake8-xla` reports it as XLA001 instead, naming the error, and exits
with status 1, in the command and in the pre-commit hook. The same holds for:

- a file that is not valid UTF-8 and has no coding line: flake8 quietly reads it
  as latin-1, Python refuses to run it (`SyntaxError: Non-UTF-8 code ...`);
- a file that cannot be opened (permissions, a folder named `x.py`);
- a notebook that is not valid JSON or not nbformat 4, and a notebook whose
  code cells do not parse once IPython magics are masked.

Under plain flake8 the plugin never sees a file with a syntax error: keep
flake8's `E9` codes selected (`select = E9,F,XLA`, or the default selection). The
plugin itself reports the undecodable file as XLA001, and a notebook that
flake8 reads as Python (run `flake8-xla NB.ipynb` or `nbqa flake8` instead).

**Example**
```python
# train.py, saved as latin-1, no coding line
print("époque")
def step(:
```
**Use instead**
```python
# -*- coding: latin-1 -*-   (or save the file as UTF-8)
print("époque")
def step():
    ...
```
"""
    source = ("https://docs.python.org/3/reference/lexical_analysis.html#encoding-declarations",
              "https://flake8.pycqa.org/en/latest/user/error-codes.html")
    versions = "all"

    def check(self) -> Iterator[Finding]:
        """Nothing: a file that reached the rules was read and parsed.

        XLA001 is reported before any rule runs, by the plugin
        (:func:`flake8_xla.sources.encoding_problem`) and by the command, which
        renames flake8's E999/E902 (:func:`flake8_xla.sources.unreadable_from_flake8`).
        """
        return iter(())
