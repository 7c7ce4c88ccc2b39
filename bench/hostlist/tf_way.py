"""TensorFlow's way of expanding a Slurm hostlist, for bench/hostlist/run.py.

Since 2020 SlurmClusterResolver no longer runs `scontrol show hostname`; it expands
SLURM_STEP_NODELIST itself with a small regex-based parser. This module follows the rules of
that parser as described in its tests and documentation, written here from that description:

  1. split at commas outside brackets ('[' inside brackets, and an empty element from ',,'
     or a leading ',', are errors; a trailing ',' is ignored);
  2. each part is a prefix and at most ONE bracket group, at the end
     (^([^,[\\]]*)(\\[([^\\]]+)\\])?$), so n[1-2]-ib and a[1-2]b[3-4] are errors;
  3. a part without brackets is a host name as it is;
  4. a bracket group is split on ','; each piece is A or A-B, expanded to int(A)..int(B),
     every number zero-padded to len(A).
Errors raise ValueError. Blanks are not separators.
"""
import re

_PART = re.compile(r"^([^,[\]]*)(\[([^\]]+)\])?$")


def _split_parts(text):
    parts, start, inside = [], 0, False
    for i, ch in enumerate(text):
        if ch == "[":
            if inside:
                raise ValueError("nested brackets")
            inside = True
        elif ch == "]":
            inside = False
        elif ch == "," and not inside:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    if parts[-1] == "":
        parts.pop()  # a trailing comma
    if any(p == "" for p in parts):
        raise ValueError("empty element")
    return parts


def expand_hostlist(text):
    try:
        hosts = []
        for part in _split_parts(text):
            m = _PART.match(part)
            if not m:
                raise ValueError("Invalid part: %s" % part)
            prefix, group = m.group(1), m.group(3)
            if group is None:
                hosts.append(prefix)
                continue
            for piece in group.split(","):
                bounds = piece.split("-")
                if len(bounds) > 2:
                    raise ValueError("Invalid range: %s" % piece)
                width = len(bounds[0])
                for n in range(int(bounds[0]), int(bounds[-1]) + 1):
                    hosts.append("%s%0*d" % (prefix, width, n))
        return hosts
    except ValueError as e:
        raise ValueError('Invalid hostlist format "%s": %s' % (text, e))
