"""One exception class per stable status code (docs/errors.md).

Every error of the engine arrives as an instance of the class of its code,
carrying the status as the CLI prints it: ``code`` (``"not_found"``),
``message``, ``path`` (a JSON path, an object key or a setting name; ``""``
when none) and ``offset`` (a byte offset, or None). ``str(e)`` is
``Status::ToString()``: ``code: path: message (at byte N)``.
"""


class Error(Exception):
    code = "unknown"

    def __init__(self, message, path="", offset=None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.offset = offset

    def __str__(self):
        text = self.code + ": "
        if self.path:
            text += self.path + ": "
        text += self.message
        if self.offset is not None:
            text += " (at byte %d)" % self.offset
        return text


def _define(name, code, *bases):
    cls = type(name, bases or (Error,), {"code": code, "__module__": "vigilo"})
    return cls


InvalidArgument = _define("InvalidArgument", "invalid_argument")
ParseError = _define("ParseError", "parse_error")
InvalidFormat = _define("InvalidFormat", "invalid_format")
NotCanonical = _define("NotCanonical", "not_canonical")
IntegrityError = _define("IntegrityError", "integrity_error")
LimitExceeded = _define("LimitExceeded", "limit_exceeded")
OutOfRange = _define("OutOfRange", "out_of_range")
NotFound = _define("NotFound", "not_found")
AlreadyExists = _define("AlreadyExists", "already_exists")
IoError = _define("IoError", "io_error")
Unavailable = _define("Unavailable", "unavailable")
DeadlineExceeded = _define("DeadlineExceeded", "deadline_exceeded")
# A cancel caused by Ctrl-C is also a KeyboardInterrupt, so a script stops
# as it would anywhere else, after the operation cleaned up.
Cancelled = _define("Cancelled", "cancelled", Error, KeyboardInterrupt)
Fenced = _define("Fenced", "fenced")
Unimplemented = _define("Unimplemented", "unimplemented")
Internal = _define("Internal", "internal")

BY_CODE = {cls.code: cls for cls in (
    InvalidArgument, ParseError, InvalidFormat, NotCanonical, IntegrityError, LimitExceeded, OutOfRange,
    NotFound, AlreadyExists, IoError, Unavailable, DeadlineExceeded, Cancelled, Fenced, Unimplemented,
    Internal)}


def from_status(code, message, path, offset):
    """The exception for a status (called by the extension)."""
    return BY_CODE.get(code, Internal)(message, path, offset)
