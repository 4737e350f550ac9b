"""NL0xx: findings about netlint's input itself. The engine and loaders emit them; these classes
carry their docs so ``netlint rule NL003`` explains each one like any other rule."""

from netlint.findings import Severity
from netlint.rules.base import Rule


class _EngineRule(Rule):
    engine_only = True
    tags = ("input",)


class InternalError(_EngineRule):
    """A loader, a rule or a join step raised an exception. This is a netlint bug, not a verdict on
    the file: the finding sits at the file the loader was reading (or at the netlint configuration,
    else `.`, for a rule), everything else is still checked and reported, and the run exits with
    code 2. stderr gets one line; `netlint check --verbose` prints the traceback. Please report it
    with the file that triggered it."""

    code, name, summary = "NL000", "internal-error", "A loader or rule failed with an exception (netlint bug)"


class UnreadableFile(_EngineRule):
    """The file could not be read (permissions, a broken symlink, a directory named as a file), or
    netlint does not read it: a FIFO, a device or a socket (only regular files are read: a FIFO would
    block the run, `/dev/zero` never ends), a symbolic link to a target outside the project root or in
    a loop, a path with a component over 255 bytes. Walking a folder skips such files silently; the
    finding is for files named on the command line or by the inventory.

    Fix: make the file readable, or name the real file inside the project."""

    code, name, summary = "NL001", "unreadable-file", "File cannot be read"


class NotText(_EngineRule):
    """The file is binary (contains NUL bytes) or is not valid UTF-8, so no config format applies.

    Bad: a `config_db.json` saved as UTF-16 by an editor. Good: the same file saved as UTF-8.
    The finding points at the first byte that cannot be decoded."""

    code, name, summary = "NL002", "not-text", "Binary or non-UTF-8 file"


class ParseErrorRule(_EngineRule):
    """The YAML or JSON does not parse. The position is the parser's own (libyaml for YAML,
    Python's json module for JSON). A file that does not parse is never fixed.

    Bad: `{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4",}}}` (trailing comma).
    Good: `{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}}}`."""

    code, name, summary = "NL003", "parse-error", "YAML or JSON syntax error"


class UnknownKey(_EngineRule):
    """A key the format does not define. netlint's own formats (inventory, native switch QoS) are
    strict: a misspelled key would otherwise be ignored and its intent lost. The message suggests the
    closest known key.

    Bad: `fabric: {trasport: roce}`. Good: `fabric: {transport: roce}`."""

    code, name, summary = "NL004", "unknown-key", "Key not defined by the format"


class InvalidValue(_EngineRule):
    """A value of the wrong type, outside its allowed range or set, or a required key that is missing.

    Bad: `nodes: {gpus: eight}`. Good: `nodes: {gpus: 8}`."""

    code, name, summary = "NL005", "invalid-value", "Wrong type, out of range or missing value"


class EmptyFile(_EngineRule):
    """The file is empty (or only whitespace) although it was named explicitly or by a name netlint
    owns, such as `inventory.yaml`."""

    code, name, summary = "NL006", "empty-file", "Empty file"
    severity = Severity.WARNING


class UnrecognisedFile(_EngineRule):
    """A file named explicitly on the command line (or by the inventory) whose format netlint does
    not recognise by name or content. It was not checked. Files found by walking a directory are
    skipped silently instead."""

    code, name, summary = "NL007", "unrecognised-file", "File format not recognised"
    severity = Severity.WARNING


class FileTooLarge(_EngineRule):
    """The file is larger than `limits.max-file-mb` (default 10 MiB) and was not read. No switch,
    NCCL or training config comes near that size; a file that does is generated data, a log or an
    attempt to exhaust the linter's memory.

    Fix: exclude the file (`exclude:`), or raise `limits: {max-file-mb: N}` if it really is a config."""

    code, name, summary = "NL013", "file-too-large", "File larger than limits.max-file-mb, not read"


class ConfigError(_EngineRule):
    """netlint's own configuration (`[tool.netlint]`, `netlint.yaml`) has an unknown key or a bad
    value. The run stops with exit code 2, as ruff does for an invalid configuration.

    Bad: `ignroe: [NCCL305]`. Good: `ignore: [NCCL305]`."""

    code, name, summary = "NL008", "config-error", "Invalid netlint configuration"


class DuplicateKey(_EngineRule):
    """The same key appears twice in one mapping. YAML and JSON readers keep the last value
    silently, so the first one is dead text that a reader may believe.

    Bad: `{"PORT": {"Ethernet0": {"mtu": "9100", "mtu": "1500"}}}`."""

    code, name, summary = "NL009", "duplicate-key", "Duplicate key in a mapping"
    severity = Severity.WARNING


class MissingFile(_EngineRule):
    """The inventory (or another file) names a file that does not exist, so what it describes
    cannot be checked. Bad: `switches: [{name: leaf01, config: switches/leaf01.json}]` with no such file."""

    code, name, summary = "NL010", "missing-file", "Referenced file does not exist"

