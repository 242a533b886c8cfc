"""The package's error type: bad input raises ScenarioError with the line `moesim` prints for it."""
import re

from . import _core


class ScenarioError(ValueError):
    """Bad input: `file`, `line`, `column` and `key` (dotted path) where the message names them."""

    _WHERE = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<column>\d+): (?:(?P<key>[\w.\[\]-]+): )?")
    _SET = re.compile(r"^--set [^ ]*?: (?:(?P<key>[\w.\[\]-]+): )?")

    def __init__(self, message):
        super().__init__(message)
        self.message = message
        self.file = self.line = self.column = self.key = None
        m = self._WHERE.match(message)
        if m:
            self.file, self.line, self.column = m.group("file"), int(m.group("line")), int(m.group("column"))
            self.key = m.group("key")
        elif (m := self._SET.match(message)):
            self.key = m.group("key")


def call(f, *args, **kwargs):
    """f(*args, **kwargs), with the extension's input errors raised as ScenarioError."""
    try:
        return f(*args, **kwargs)
    except _core.InputError as e:
        raise ScenarioError(str(e)) from None
