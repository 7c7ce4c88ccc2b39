"""Readers for the texts launchers hand a process (hostlists, hostfiles, host lists in JSON),
written from the formats the header's manual documents, for the property test's model.

Each reader returns None when the text is not of its format: the model then expects the
backend to refuse it. Readers that meet a form the test does not generate (several bracket
groups in one Slurm name) return UNKNOWN, and the model checks nothing that depends on it.
"""
import json
import re

UNKNOWN = "unknown"
MAX_TASKS = 1000000  # CRES_MAX_HOSTLIST_HOSTS
MAX_NAME = 255       # CRES_MAX_NAME_LENGTH
DECIMAL = re.compile(r"-?[0-9]+")
BLANKS = " \t\r\n"


def is_blank(text):
    return all(c in BLANKS for c in text)


def decimal(text):
    """The integer a launcher variable holds, as the header reads it (an optional '-' and
    digits, nothing else), or None."""
    if not DECIMAL.fullmatch(text):
        return None
    return int(text)


def count(text, low=1, high=MAX_TASKS):
    n = decimal(text)
    return n if n is not None and low <= n <= high else None


def bad_host(name):
    """A name a hostfile cannot hold: empty, too long, blanks or control bytes."""
    return not name or len(name) > MAX_NAME or any(ord(c) <= 32 or ord(c) == 127 for c in name)


def host_ok(name):
    """A host an address can be made of (manual section 9): no brackets, blanks or control
    bytes, at most 255 bytes, ':' only in an IPv6 literal."""
    if bad_host(name) or "[" in name or "]" in name:
        return False
    return ":" not in name or (name.count(":") >= 2 and re.fullmatch(r"[0-9a-fA-F:.]+", name))


# ---- Slurm ---------------------------------------------------------------------------------

def _split_hostlist(text):
    """Names separated by commas or blanks outside brackets."""
    names, depth, word = [], 0, ""
    for c in text:
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        if depth == 0 and (c == "," or c in BLANKS):
            names.append(word)
            word = ""
        else:
            word += c
    names.append(word)
    return [n for n in names if n], depth


def _expand_range(part):
    lo, _, hi = part.partition("-")
    if not lo.isdigit() or (hi and not hi.isdigit()):
        return None
    first, last = int(lo), int(hi) if hi else int(lo)
    if last < first or last - first > MAX_TASKS:
        return None
    return ["%0*d" % (len(lo), k) for k in range(first, last + 1)]


def _expand_name(name):
    if "[" not in name and "]" not in name:
        return [name]
    m = re.fullmatch(r"([^\[\]]*)\[([^\[\]]*)\]([^\[\]]*)", name)
    if not m:
        return UNKNOWN  # several groups: an order the test does not model
    out = []
    for part in m.group(2).split(","):
        numbers = _expand_range(part)
        if numbers is None:
            return None
        out += [m.group(1) + n + m.group(3) for n in numbers]
    return out


def expand_hostlist(text):
    """SLURM_STEP_NODELIST's hosts in order, None when malformed, UNKNOWN when not modelled."""
    names, depth = _split_hostlist(text)
    if depth != 0:
        return None
    hosts = []
    for name in names:
        part = _expand_name(name)
        if part is None or part == UNKNOWN:
            return part
        hosts += part
    return hosts


def expand_tasks_per_node(text):
    """SLURM_STEP_TASKS_PER_NODE ("2(x3),1") as counts, or None."""
    counts = []
    for part in text.split(","):
        m = re.fullmatch(r"([0-9]+)(?:\(x([0-9]+)\))?", part)
        if not m:
            return None
        n, times = int(m.group(1)), int(m.group(2) or 1)
        if n > MAX_TASKS or not 1 <= times <= MAX_TASKS:
            return None
        counts += [n] * times
    return counts


# ---- hostfiles -----------------------------------------------------------------------------

def _slot_word(word):
    """slots=N (the count), max_slots=N (0: ignored), or None."""
    for key in ("slots", "max_slots", "max-slots"):
        if word.startswith(key) and word[len(key):len(key) + 1] in ("=", ":"):
            n = count(word[len(key) + 1:])
            if n is None:
                return None
            return n if key == "slots" else 0
    return None


def _hostfile_line(line):
    """(host, slots), (None, 0) for a blank or comment line, or None when malformed."""
    words = line.split("#")[0].replace("\t", " ").replace("\r", " ").split(" ")
    words = [w for w in words if w]
    if not words:
        return None, 0
    host, slots = words[0], 1
    if host.count(":") == 1:
        host, _, n = host.partition(":")
        slots = count(n)
        if slots is None:
            return None
    if bad_host(host):
        return None
    for word in words[1:]:
        n = _slot_word(word)
        if n is None:
            return None
        slots = n or slots
    return host, slots


def parse_hostfile(text):
    """Open MPI ("host slots=N"), MPICH ("host:N") or plain host lines, as [(host, slots)]
    in order of first mention with a host named again adding its slots; None if malformed."""
    order, slots = [], {}
    for line in text.split("\n"):
        parsed = _hostfile_line(line)
        if parsed is None:
            return None
        host, n = parsed
        if host is None:
            continue
        if host not in slots:
            order.append(host)
            slots[host] = 0
        slots[host] += n
    if not order or sum(slots.values()) > MAX_TASKS:
        return None
    return [(h, slots[h]) for h in order]


def pe_hostfile_as_hostfile(text):
    """Grid Engine's "host slots queue processors" lines as "host slots=N", or None."""
    out = []
    for line in text.split("\n"):
        words = line.replace("\t", " ").replace("\r", " ").split()
        if not words:
            continue
        if len(words) < 2:
            return None
        out.append("%s slots=%s" % (words[0], words[1]))
    return "\n".join(out)


def mcpu_hosts_as_hostfile(text):
    """LSB_MCPU_HOSTS ("hA 4 hB 4") as hostfile lines, or None."""
    words = text.replace("\t", " ").split()
    if not words or len(words) % 2:
        return None
    if any(count(n) is None for n in words[1::2]):
        return None
    return "\n".join("%s slots=%s" % (h, n) for h, n in zip(words[::2], words[1::2]))


# ---- lists of hosts ------------------------------------------------------------------------

def json_host_list(text):
    """SageMaker's SM_HOSTS: a non-empty JSON list of distinct host names, or None."""
    try:
        hosts = json.loads(text)
    except ValueError:
        return None
    if not isinstance(hosts, list) or not hosts or not all(isinstance(h, str) for h in hosts):
        return None
    if len(set(hosts)) != len(hosts) or any(bad_host(h) for h in hosts):
        return None
    return hosts


def natural_key(name):
    """The header's natural order: digit runs as numbers, then the plain string."""
    parts = re.split(r"([0-9]+)", name)
    key = [(int(p), 0) if i % 2 else (0, p) for i, p in enumerate(parts)]
    return key, name


def split_address(address):
    """(host, port) of "host", "host:port" or "[v6]:port"; port None when absent; None if
    malformed."""
    if address.startswith("["):
        m = re.fullmatch(r"\[([^\]]*)\](?::(.*))?", address)
        if not m:
            return None
        host, port = m.group(1), m.group(2)
    elif address.count(":") == 1:
        host, _, port = address.partition(":")
    else:
        host, port = address, None
    if port is None:
        return host, None
    p = decimal(port)
    return (host, p) if p is not None and 0 <= p <= 65535 else None


# ---- placing ranks -------------------------------------------------------------------------

def deal(counts, how="block", plane=1):
    """(node, local index) of every rank when a launcher deals ranks to nodes holding
    counts[i] tasks: in blocks, or in rounds of one (cyclic) or `plane` per node."""
    if how == "block":
        return [(n, k) for n, c in enumerate(counts) for k in range(c)]
    step = plane if how == "plane" else 1
    out, start = [], 0
    while len(out) < sum(counts):
        for n, c in enumerate(counts):
            out += [(n, k) for k in range(start, min(start + step, c))]
        start += step
    return out


def fill_slots(slots, size):
    """The task count of every host when `size` ranks fill [(host, slots)] in order (mpirun's
    default); hosts left without a rank drop out. None when the slots are too few."""
    if sum(n for _, n in slots) < size:
        return None
    out, left = [], size
    for host, n in slots:
        take = min(n, left)
        left -= take
        if take:
            out.append((host, take))
    return out


def fill_by_node(slots, size):
    """mpirun --map-by node: one rank per host with room, round after round."""
    counts, left = [0] * len(slots), size
    while left:
        room = [i for i, (_, n) in enumerate(slots) if counts[i] < n]
        if not room:
            return None
        for i in room[:left]:
            counts[i] += 1
        left -= min(left, len(room))
    return [(h, c) for (h, _), c in zip(slots, counts) if c]
