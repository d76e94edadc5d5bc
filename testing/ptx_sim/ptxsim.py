"""ptxsim: a functional simulator for the PTX subset that ptxblas generates.

Each kernel is translated once into a Python generator function (one "thread"), with every PTX
register a local variable and every label a basic block; bar.sync becomes a yield. A launch runs
the threads of one block round-robin from barrier to barrier, block after block.

What it models:
  * integer registers hold canonical Python ints of their declared type (wrapped on every write),
    f32 registers hold Python floats rounded to f32 after every operation, f64 plain floats,
    predicates bools; b16/b32 bit patterns are reinterpreted where PTX moves bits between types
  * global memory: 4 KiB pages made on demand, with a per-byte permission map (read / write).
    Every access is checked for alignment, mapping and permission, so reading padding or writing
    outside C faults; 64-bit addresses (huge leading dimensions) cost only the pages touched
  * shared memory: one bytearray per block, filled with 0xFF (NaN) so unwritten data shows up;
    optional race checking (racecheck=True): a shared 16-bit unit written by one thread and read
    or written by another between the same two barriers is reported
  * fma.rn.f32 is a*b+c in double then rounded to f32 (exact but for rare double rounding);
    fma.rn.f64 uses math.fma where Python has it (3.13+), else a*b+c in double (two roundings)
  * generic loads/stores (ld without a state space) address global memory
  * cp.async (global -> shared, 4/8/16 bytes, src-size 0, whole or a multiple of 4 between:
    the rest zero-filled, and only src-size bytes read) reads global
    memory when issued and poisons its destination then (a read before the wait sees 0xFF); the
    data lands when cp.async.wait_group / wait_all retires its group, as a shared store of the
    issuing thread at that moment (so the race check sees a reader that skips the barrier after
    the wait). A thread that exits with copies in flight is a fault
  * mma.sync (m8n8k4 f64; m16n8k16 f16/bf16 -> f32) is a warp-wide exchange: each thread leaves
    its fragment registers and yields; when every thread of the block has arrived, the launcher
    multiplies each warp's fragments as the PTX ISA lays them out and hands the results back.
    f64: a chain of fma per element; f32: exact products summed in double, then rounded once
Unsupported instructions or modifiers raise PtxError when the kernel is translated: nothing is
silently skipped. Runtime faults (bad access, uninitialised register, division by zero, barrier
divergence, race, runaway loop) raise SimFault naming the block, thread and PTX line.
"""

import math
import re
import struct
import sys

__all__ = ["PtxError", "SimFault", "Kernel", "Memory", "launch", "f32", "f16_bits", "bf16_bits",
           "f16_value", "bf16_value"]


DYNAMIC_SHARED_BYTES = 227 * 1024  # an .extern .shared array's size (sm_90's opt-in maximum)


class PtxError(Exception):
    """The PTX text uses something the simulator does not implement (raised at translation)."""


class SimFault(Exception):
    """A runtime fault of the simulated kernel."""


# ----------------------------------------------------------------------------------------------
# Number formats

_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")
_F64 = struct.Struct("<d")
_U64 = struct.Struct("<Q")
_F16 = struct.Struct("<e")
_U16 = struct.Struct("<H")
_MV32 = memoryview(bytearray(4)).cast("f")


def f32(x):
    """Round a Python float to the nearest f32 (overflow gives +-inf)."""
    _MV32[0] = x
    return _MV32[0]


def _b2f32(u):
    return _F32.unpack(_U32.pack(u & 0xFFFFFFFF))[0]


def _f2b32(x):
    return _U32.unpack(_F32.pack(x))[0]


def _b2f64(u):
    return _F64.unpack(_U64.pack(u & 0xFFFFFFFFFFFFFFFF))[0]


def _f2b64(x):
    return _U64.unpack(_F64.pack(x))[0]


_F16_TABLE = struct.unpack("<65536e", struct.pack("<65536H", *range(65536)))


def f16_value(bits):
    return _F16_TABLE[bits & 0xFFFF]


def bf16_value(bits):
    return _b2f32((bits & 0xFFFF) << 16)


def f16_bits(x):
    """Bits of x rounded to nearest-even f16 (cvt.rn.f16.f32)."""
    try:
        return _U16.unpack(_F16.pack(x))[0]
    except OverflowError:
        return 0x7C00 if x > 0 else 0xFC00


def bf16_bits(x):
    """Bits of x (an f32 value) rounded to nearest-even bf16 (cvt.rn.bf16.f32)."""
    b = _f2b32(x)
    if (b & 0x7FFFFFFF) > 0x7F800000:
        return ((b >> 16) | 0x40) & 0xFFFF
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def _fdiv(a, b):
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _fmin(a, b):
    if a != a:
        return b
    if b != b:
        return a
    return a if a < b or (a == b and math.copysign(1, a) < 0) else b


def _fmax(a, b):
    if a != a:
        return b
    if b != b:
        return a
    return a if a > b or (a == b and math.copysign(1, a) > 0) else b


def _sqrt(a):
    if a != a or a < 0:
        return math.nan
    return math.sqrt(a)


def _sdiv(a, b):
    if b == 0:
        raise SimFault("integer division by zero")
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _srem(a, b):
    if b == 0:
        raise SimFault("integer division by zero")
    return a - b * _sdiv(a, b)


def _udiv(a, b):
    if b == 0:
        raise SimFault("integer division by zero")
    return a // b


def _urem(a, b):
    if b == 0:
        raise SimFault("integer division by zero")
    return a % b


def _f2i(x, mode, bits, signed):
    """cvt.r?i.{s,u}N.fM: round to integral, saturate, NaN -> 0."""
    if x != x:
        return 0
    if mode == "rzi":
        v = math.trunc(x) if math.isfinite(x) else x
    elif mode == "rmi":
        v = math.floor(x) if math.isfinite(x) else x
    elif mode == "rpi":
        v = math.ceil(x) if math.isfinite(x) else x
    else:
        v = round(x) if math.isfinite(x) else x  # round() is half-even
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if v < lo:
        return lo
    if v > hi:
        return hi
    return int(v)


_fma64 = getattr(math, "fma", None)

# ----------------------------------------------------------------------------------------------
# Types

_TYPES = {}
for _k in "sub":
    for _w in (8, 16, 32, 64):
        _TYPES[_k + str(_w)] = (_k, _w)
_TYPES["f32"] = ("f", 32)
_TYPES["f64"] = ("f", 64)
_TYPES["pred"] = ("p", 1)
# f16 / bf16 appear only as cvt operand types, held in b16 registers.
_CVT_ONLY = {"f16": ("h", 16), "bf16": ("hb", 16)}

_STRUCT_CODE = {("s", 8): "b", ("s", 16): "h", ("s", 32): "i", ("s", 64): "q",
                ("u", 8): "B", ("u", 16): "H", ("u", 32): "I", ("u", 64): "Q",
                ("b", 8): "B", ("b", 16): "H", ("b", 32): "I", ("b", 64): "Q",
                ("f", 32): "f", ("f", 64): "d"}


def _is_int(t):
    return t[0] in "sub"


def _wrap_expr(e, t):
    kind, w = t
    mask = (1 << w) - 1
    if kind == "s":
        half = 1 << (w - 1)
        return "((((%s) + %d) & %d) - %d)" % (e, half, mask, half)
    return "((%s) & %d)" % (e, mask)


def _wrap_val(v, t):
    kind, w = t
    v &= (1 << w) - 1
    if kind == "s" and v >> (w - 1):
        v -= 1 << w
    return v


def _int_fits(src, dst):
    """A canonical value of int type src is canonical for int type dst too."""
    sk, sw = src
    dk, dw = dst
    s_signed, d_signed = sk == "s", dk == "s"
    if s_signed == d_signed:
        return sw <= dw
    if not s_signed and d_signed:
        return sw < dw
    return False


# ----------------------------------------------------------------------------------------------
# Parsing

_SPECIAL = {}
for _r in ("tid", "ntid", "ctaid", "nctaid"):
    for _d in "xyz":
        _SPECIAL["%" + _r + "." + _d] = _r + "_" + _d

_LABEL_RE = re.compile(r"^\s*([A-Za-z_$][\w$]*)\s*:")
_IDENT_RE = re.compile(r"^[A-Za-z_$%][\w$]*$")
_INT_RE = re.compile(r"^-?(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)[uU]?$")


def _int_literal(tok):
    """PTX integer literal: decimal, 0x hex, 0 octal, optional U suffix."""
    t = tok.rstrip("uU")
    neg = t.startswith("-")
    t = t.lstrip("-")
    v = int(t, 16) if t[:2] in ("0x", "0X") else int(t, 8) if len(t) > 1 and t[0] == "0" else int(t)
    return -v if neg else v


def _split_operands(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


class _Insn:
    __slots__ = ("line", "text", "guard", "neg", "op", "parts", "ops")


class Kernel:
    """One .entry of a PTX module, translated to Python."""

    def __init__(self, text, entry=None, source="<ptx>"):
        self.text = text
        self.source = source
        self._parse(text, entry)
        self._translate()

    # -- parsing --------------------------------------------------------------------------------
    def _parse(self, text, entry):
        m = None
        for mm in re.finditer(r"\.entry\s+([\w$]+)\s*\(", text):
            if entry is None or mm.group(1) == entry:
                m = mm
                break
        if m is None:
            raise PtxError("no .entry %s in %s" % (entry or "", self.source))
        self.name = m.group(1)
        close = text.index(")", m.end())
        self.params = []
        for p in _split_operands(text[m.end():close].replace("\n", " ")):
            pm = re.match(r"^\.param\s+\.(\w+)\s+([\w$]+)$", p.strip())
            if not pm or pm.group(1) not in _TYPES:
                raise PtxError("unsupported parameter declaration: %r" % p)
            self.params.append((pm.group(2), pm.group(1)))
        open_ = text.index("{", close)
        between = text[close + 1:open_]
        for d in re.findall(r"\.(\w+)", between):
            if d not in ("maxntid", "reqntid", "minnctapersm", "maxnreg"):
                raise PtxError("unsupported entry directive .%s" % d)
        end = text.rindex("}")
        first_line = text.count("\n", 0, open_) + 1
        self.regs = {}
        self.shared = {}
        self.shared_size = 0
        # Module-scope dynamic shared memory (.extern .shared name[]): sized at the sm_90 opt-in
        # maximum, since the size is a launch argument; placed after the static arrays (below).
        dyn = re.findall(r"^\s*\.extern\s+\.shared\s+(?:\.align\s+(\d+)\s+)?\.b8\s+([\w$]+)\[\]\s*;",
                         text[:m.start()], re.M)
        self.insns = []
        self.labels = {}
        pending = ""
        pending_line = None
        body = text[open_ + 1:end].split("\n")
        for i, raw in enumerate(body):
            lineno = first_line + i
            s = raw.split("//", 1)[0].strip()
            while s:
                lm = _LABEL_RE.match(s) if not pending else None
                if lm and not s.startswith("@"):
                    lab = lm.group(1)
                    if lab in self.labels:
                        raise PtxError("duplicate label %s" % lab)
                    self.labels[lab] = len(self.insns)
                    s = s[lm.end():].strip()
                    continue
                if ";" not in s:
                    pending += " " + s
                    pending_line = pending_line or lineno
                    break
                stmt, s = s.split(";", 1)
                stmt = (pending + " " + stmt).strip()
                ln = pending_line or lineno
                pending, pending_line = "", None
                s = s.strip()
                if stmt:
                    self._statement(stmt, ln)
        if pending.strip():
            raise PtxError("unterminated statement %r" % pending)
        for align, name in dyn:
            align = int(align or 1)
            off = (self.shared_size + align - 1) // align * align
            self.shared[name] = off
            self.shared_size = off + DYNAMIC_SHARED_BYTES

    def _statement(self, stmt, line):
        if stmt.startswith("."):
            return self._directive(stmt, line)
        if stmt.startswith("{") or stmt.startswith("}"):
            raise PtxError("line %d: nested scopes are not supported" % line)
        ins = _Insn()
        ins.line, ins.text = line, stmt
        ins.guard, ins.neg = None, False
        gm = re.match(r"^@(!?)(%[\w$]+)\s+(.*)$", stmt)
        if gm:
            ins.neg = gm.group(1) == "!"
            ins.guard = gm.group(2)
            stmt = gm.group(3)
        op, _, rest = stmt.partition(" ")
        if not op:
            raise PtxError("line %d: empty instruction" % line)
        ins.parts = op.split(".")
        ins.op = ins.parts[0]
        ins.ops = _split_operands(rest.strip())
        self.insns.append(ins)

    def _directive(self, stmt, line):
        words = stmt.split(None, 2)
        if words[0] == ".reg":
            t = words[1].lstrip(".")
            if t not in _TYPES:
                raise PtxError("line %d: unsupported register type .%s" % (line, t))
            for name in _split_operands(words[2]):
                rm = re.match(r"^(%[\w$]+)<(\d+)>$", name)
                if rm:
                    for j in range(int(rm.group(2))):
                        self.regs[rm.group(1) + str(j)] = t
                elif re.match(r"^%[\w$]+$", name):
                    self.regs[name] = t
                else:
                    raise PtxError("line %d: bad register declaration %r" % (line, name))
            return
        if words[0] == ".shared":
            sm = re.match(r"^\.shared\s+(?:\.align\s+(\d+)\s+)?\.(\w+)\s+([\w$]+)\[(\d+)\]$", stmt)
            if not sm or sm.group(2) not in _TYPES or sm.group(2) == "pred":
                raise PtxError("line %d: unsupported shared declaration %r" % (line, stmt))
            align = int(sm.group(1) or 1)
            size = int(sm.group(4)) * _TYPES[sm.group(2)][1] // 8
            off = (self.shared_size + align - 1) // align * align
            self.shared[sm.group(3)] = off
            self.shared_size = off + size
            return
        raise PtxError("line %d: unsupported directive %r" % (line, stmt))

    # -- translation ----------------------------------------------------------------------------
    def _translate(self):
        self.mma_lines = {}  # PTX line -> mma shape/types key
        self._lines = []  # (indent, code, ptx line)
        self._helpers = set()
        block_starts = sorted(set(self.labels.values()) | {0})
        block_of = {pos: n for n, pos in enumerate(block_starts)}
        self._label_block = {lab: block_of[pos] for lab, pos in self.labels.items()}
        cur_block = -1
        for idx, ins in enumerate(self.insns):
            if idx in block_of:
                if cur_block >= 0:
                    self._emit(3, "_b = %d" % block_of[idx], None)
                cur_block = block_of[idx]
                self._emit(2, "if _b == %d:" % cur_block, None)
                self._emit(3, "pass", None)
            self._cur_block = cur_block
            try:
                code = self._insn(ins)
            except PtxError as e:
                raise PtxError("%s line %d `%s`: %s" % (self.source, ins.line, ins.text, e)) from None
            if ins.guard is not None:
                if self.regs.get(ins.guard) != "pred":
                    raise PtxError("line %d: guard %s is not a predicate" % (ins.line, ins.guard))
                g = self._reg(ins.guard)
                self._emit(3, ("if not %s:" if ins.neg else "if %s:") % g, ins.line)
                for c in code:
                    self._emit(4, c, ins.line)
            else:
                for c in code:
                    self._emit(3, c, ins.line)
        if cur_block < 0:
            self._emit(2, "if _b == 0:", None)
        for pos, n in block_of.items():  # labels after the last instruction
            if pos == len(self.insns):
                self._emit(3, "_b = %d" % n, None)
                self._emit(2, "if _b == %d:" % n, None)
        for c in self._i_ret([], [], None):  # falling off the end is a ret
            self._emit(3, c, None)
        self._emit(2, "raise _SimFault('fell out of the block dispatch')", None)

        src = ["def _factory(_P, _H):"]
        linemap = {}
        for name, _t in self.params:
            src.append("    _p_%s = _P[%r]" % (self._ident(name), name))
        for h in sorted(self._helpers):
            src.append("    %s = _H[%r]" % (h, h))
        src.append("    def _thread(tid_x, tid_y, tid_z, ntid_x, ntid_y, ntid_z, ctaid_x, ctaid_y, ctaid_z,"
                   " nctaid_x, nctaid_y, nctaid_z, _tl):")
        src.append("        if False: yield 0")
        src.append("        _b = 0")
        src.append("        _n = 0")
        src.append("        _cpq = []")  # cp.async copies of the open group: (shared addr, bytes)
        src.append("        _cpg = []")  # committed groups, oldest first
        src.append("        while True:")
        for indent, code, line in self._lines:
            src.append("    " * (indent + 1) + code)
            if line is not None:
                linemap[len(src)] = line
        src.append("    return _thread")
        self.py_source = "\n".join(src) + "\n"
        self._filename = "<ptxsim:%s>" % self.name
        self.linemap = linemap
        self.ptx_lines = self.text.split("\n")
        ns = {"_SimFault": SimFault}
        exec(compile(self.py_source, self._filename, "exec"), ns)
        self._factory = ns["_factory"]
        del self._lines

    def _emit(self, indent, code, line):
        self._lines.append((indent, code, line))

    @staticmethod
    def _ident(name):
        return re.sub(r"[^\w]", "_", name.lstrip("%"))

    def _reg(self, name):
        if name not in self.regs:
            raise PtxError("undeclared register %s" % name)
        return "R_" + self._ident(name)

    def _need(self, helper):
        self._helpers.add(helper)
        return helper

    # Value of operand `op` as type t (a _TYPES tuple); returns a Python expression.
    def _val(self, op, t):
        op = op.strip()
        if op.startswith("!"):
            if t != _TYPES["pred"]:
                raise PtxError("negated operand %s where %s expected" % (op, t))
            return "(not %s)" % self._val(op[1:], t)
        if op in _SPECIAL:
            if not _is_int(t):
                raise PtxError("special register %s used as %s" % (op, t))
            return _SPECIAL[op] if _int_fits(("u", 32), t) else _wrap_expr(_SPECIAL[op], t)
        if op.startswith("%"):
            r = self._reg(op)
            return self._conv(r, _TYPES[self.regs[op]], t, op)
        if op in self.shared:
            if not _is_int(t):
                raise PtxError("shared symbol used as %s" % (t,))
            return str(self.shared[op])
        if op.startswith("0f") or op.startswith("0F"):
            v = _b2f32(int(op[2:], 16))
            if t[0] == "f":
                return self._fconst(v)
            if _is_int(t) and t[1] == 32:
                return str(int(op[2:], 16))
            raise PtxError("f32 literal used as %s" % (t,))
        if op.startswith("0d") or op.startswith("0D"):
            v = _b2f64(int(op[2:], 16))
            if t[0] == "f":
                return self._fconst(v if t[1] == 64 else f32(v))
            if _is_int(t) and t[1] == 64:
                return str(int(op[2:], 16))
            raise PtxError("f64 literal used as %s" % (t,))
        if _INT_RE.match(op):
            v = _int_literal(op)
            if _is_int(t):
                return str(_wrap_val(v, t))
            if t[0] == "f":
                return self._fconst(float(v) if t[1] == 64 else f32(float(v)))
            if t[0] == "p":
                return "True" if v else "False"
        raise PtxError("unsupported operand %r" % op)

    # A canonical value `e` of type s, read as type t (bit reinterpretation between equal sizes).
    def _conv(self, e, s, t, what):
        if s == t:
            return e
        if t[0] == "p" or s[0] == "p":
            raise PtxError("%s (%s) used as %s" % (what, s, t))
        if s[0] == "f" or t[0] == "f":
            if s[1] != t[1] or (s[0] == "f" and t[0] == "f"):
                raise PtxError("size/type mismatch reading %s (%s) as %s" % (what, s, t))
            if s[0] == "f":
                e = "%s(%s)" % (self._need("_f2b%d" % s[1]), e)
                return e if t[0] != "s" else _wrap_expr(e, t)
            return "%s(%s)" % (self._need("_b2f%d" % t[1]), e if s[0] != "s" else _wrap_expr(e, ("u", s[1])))
        return e if _int_fits(s, t) else _wrap_expr(e, t)

    def _fconst(self, v):
        if v != v:
            return self._need("_NAN")
        if math.isinf(v):
            return ("-" if v < 0 else "") + self._need("_INF")
        return repr(v)

    # Statements assigning `expr`, a value of type t, to register dst.
    # exact: expr is already canonical for t (an int in range / an f32-exact float).
    def _assign(self, dst, expr, t, exact=False):
        if dst not in self.regs:
            if dst == "_":
                return []
            raise PtxError("destination %s is not a declared register" % dst)
        d = _TYPES[self.regs[dst]]
        r = self._reg(dst)
        if d[0] == "p" or t[0] == "p":
            if d != t:
                raise PtxError("predicate/value mismatch writing %s" % dst)
            return ["%s = %s" % (r, expr)]
        if d[0] == "f" and t[0] == "f":
            if d[1] != t[1]:
                raise PtxError("f%d value written to .%s register %s" % (t[1], self.regs[dst], dst))
            if d[1] == 32 and not exact:
                mv = self._need("_mv")
                return ["%s[0] = %s" % (mv, expr), "%s = %s[0]" % (r, mv)]
            return ["%s = %s" % (r, expr)]
        if d[0] == "f":  # bits into a float register
            if t[1] != d[1]:
                raise PtxError("size mismatch writing %s" % dst)
            return ["%s = %s(%s)" % (r, self._need("_b2f%d" % d[1]), expr)]
        if t[0] == "f":  # float into a bit register
            if t[1] != d[1]:
                raise PtxError("size mismatch writing %s" % dst)
            e = "%s(%s)" % (self._need("_f2b%d" % t[1]), expr)
            return ["%s = %s" % (r, e if d[0] != "s" else _wrap_expr(e, d))]
        if t[1] < d[1] and not exact:
            expr, exact = _wrap_expr(expr, t), True
        if exact and _int_fits(t, d):
            return ["%s = %s" % (r, expr)]
        return ["%s = %s" % (r, _wrap_expr(expr, d))]

    def _type(self, name):
        if name not in _TYPES:
            raise PtxError("unsupported type .%s" % name)
        return _TYPES[name]

    def _insn(self, ins):
        op, parts, ops = ins.op, ins.parts, ins.ops
        fn = getattr(self, "_i_" + op, None)
        if fn is None:
            raise PtxError("unknown instruction %s" % ".".join(parts))
        return fn(parts[1:], ops, ins)

    @staticmethod
    def _mods(mods, allowed, what):
        for m in mods:
            if m not in allowed:
                raise PtxError("unsupported modifier .%s on %s" % (m, what))

    @staticmethod
    def _nops(ops, n):
        if len(ops) != n:
            raise PtxError("expected %d operands, got %d" % (n, len(ops)))

    # -- control ---------------------------------------------------------------------------------
    def _i_bra(self, mods, ops, ins):
        self._mods(mods, ("uni",), "bra")
        self._nops(ops, 1)
        if ops[0] not in self._label_block:
            raise PtxError("unknown label %s" % ops[0])
        target = self._label_block[ops[0]]
        code = ["_b = %d" % target]
        if target <= self._cur_block:
            code += ["_n += 1", "if _n > %s: raise _SimFault('runaway loop')" % self._need("_limit")]
        return code + ["continue"]

    def _i_ret(self, mods, ops, ins):
        self._mods(mods, ("uni",), "ret")
        self._nops(ops, 0)
        return ["if _cpq or _cpg: raise _SimFault('exit with cp.async copies in flight')", "return"]

    # cp.async.{ca,cg}.shared.global [dst], [src], size{, src-size}; commit_group; wait_group N;
    # wait_all (module docstring: when the data lands).
    def _i_cp(self, mods, ops, ins):
        if mods == ["async", "commit_group"]:
            self._nops(ops, 0)
            return ["_cpg.append(_cpq)", "_cpq = []"]
        if mods in (["async", "wait_group"], ["async", "wait_all"]):
            if mods[1] == "wait_all":
                self._nops(ops, 0)
                keep, code = 0, ["_cpg.append(_cpq)", "_cpq = []"]
            else:
                self._nops(ops, 1)
                if not _INT_RE.match(ops[0]):
                    raise PtxError("wait_group needs an immediate")
                keep, code = _int_literal(ops[0]), []
            put = self._shared_put("_cpd", "len(_cpr)", "_cpr")
            return code + ["while len(_cpg) > %d:" % keep,
                           "    for _cpd, _cpr in _cpg.pop(0):"] + ["        " + c for c in put]
        if len(mods) != 4 or mods[0] != "async" or mods[1] not in ("ca", "cg") or \
                mods[2:] != ["shared", "global"] or len(ops) not in (3, 4):
            raise PtxError("only cp.async.{ca,cg}.shared.global [dst], [src], size{, src-size}")
        size = _int_literal(ops[2]) if _INT_RE.match(ops[2]) else None
        if size not in ((4, 8, 16) if mods[1] == "ca" else (16,)):
            raise PtxError("cp.async size must be 4, 8 or 16 (.cg: 16)")
        dst, src = self._address(ops[0], "shared"), self._address(ops[1], "global")
        got = self._val(ops[3], _TYPES["u32"]) if len(ops) == 4 else str(size)
        gl = self._need("_GL_%ds" % size)
        poison = "b'\\xff' * %d" % size
        return (["_cpd = %s" % dst, "_cpz = %s" % got] +
                self._shared_put("_cpd", str(size), poison) +
                ["if _cpz == %d: _cpr = %s(%s)[0]" % (size, gl, src),
                 "elif _cpz == 0: _cpr = bytes(%d)" % size,
                 "elif 0 < _cpz < %d and _cpz %% 4 == 0: _cpr = %s(%s, _cpz) + bytes(%d - _cpz)" % (
                     size, self._need("_GL_part"), src, size),
                 "else: raise _SimFault('cp.async src-size %d of %d bytes' % (_cpz, " + str(size) + "))",
                 "_cpq.append((_cpd, _cpr))"])

    # Statements writing the bytes `raw` to shared address `a` (expressions) as this thread.
    def _shared_put(self, a, size, raw):
        put = self._need("_cpput")
        if self.racecheck_slots:
            return ["%s(%s, %s, %s, _tl, %s)" % (self._need("_sst"), a, size, put, raw)]
        return ["if %s < 0 or %s & (min(%s, 16) - 1) or %s + %s > len(%s): %s(%s, %s)" %
                (a, a, size, a, size, self._need("_S"), self._need("_salign"), a, size),
                "%s(%s, %s, %s)" % (put, self._need("_S"), a, raw)]

    _i_exit = _i_ret

    def _i_bar(self, mods, ops, ins):
        if mods not in (["sync"], []) or len(ops) != 1 or not _INT_RE.match(ops[0]):
            raise PtxError("only `bar.sync <id>` is supported")
        return ["yield %d" % ins.line]

    # mma.sync.aligned.<shape>.row.col.<d>.<a>.<b>.<c> {d}, {a}, {b}, {c}
    _MMA = {("m8n8k4", "f64", "f64", "f64", "f64"): (1, 1, 2, "f64", "f64"),
            ("m16n8k8", "f64", "f64", "f64", "f64"): (4, 2, 4, "f64", "f64"),
            ("m16n8k16", "f32", "f16", "f16", "f32"): (4, 2, 4, "b32", "f32"),
            ("m16n8k16", "f32", "bf16", "bf16", "f32"): (4, 2, 4, "b32", "f32")}

    def _i_mma(self, mods, ops, ins):
        if len(mods) != 9 or mods[:2] != ["sync", "aligned"] or mods[3:5] != ["row", "col"]:
            raise PtxError("only mma.sync.aligned.<shape>.row.col.<types> is supported")
        key = (mods[2],) + tuple(mods[5:])
        if key not in self._MMA:
            raise PtxError("unsupported mma shape/types %s" % ".".join(key))
        na, nb, nc, ab_t, c_t = self._MMA[key]
        self._nops(ops, 4)
        def regs(op, n):
            op = op.strip()
            if not (op.startswith("{") and op.endswith("}")):
                raise PtxError("mma operands are {...} register lists")
            r = [x.strip() for x in op[1:-1].split(",")]
            if len(r) != n:
                raise PtxError("mma operand needs %d registers" % n)
            return r
        d, a, b, c = (regs(o, n) for o, n in zip(ops, (nc, na, nb, nc)))
        at, ct = _TYPES[ab_t], _TYPES[c_t]
        xi, xo = self._need("_XI"), self._need("_XO")
        vals = lambda regs, t: "(" + "".join(self._val(r, t) + ", " for r in regs) + ")"
        code = ["%s[_tl] = (%s, %s, %s)" % (xi, vals(a, at), vals(b, at), vals(c, ct)),
                "yield %d" % ins.line, "_o = %s[_tl]" % xo]
        for i, r in enumerate(d):
            code += self._assign(r, "_o[%d]" % i, ct, exact=True)
        self.mma_lines[ins.line] = key
        return code

    def _i_barrier(self, mods, ops, ins):
        if mods != ["sync"] or len(ops) != 1 or not _INT_RE.match(ops[0]):
            raise PtxError("only `barrier.sync <id>` is supported")
        return ["yield %d" % ins.line]

    # -- moves and conversions --------------------------------------------------------------------
    def _i_mov(self, mods, ops, ins):
        self._nops(ops, 2)
        if len(mods) != 1:
            raise PtxError("mov needs exactly one type")
        t = self._type(mods[0])
        if ops[1] in self.shared:
            return self._assign(ops[0], str(self.shared[ops[1]]), t, exact=True)
        return self._assign(ops[0], self._val(ops[1], t), t, exact=True)

    def _i_cvta(self, mods, ops, ins):
        self._nops(ops, 2)
        if mods not in (["to", "global", "u64"], ["global", "u64"]):
            raise PtxError("only cvta(.to).global.u64 is supported")
        t = _TYPES["u64"]
        return self._assign(ops[0], self._val(ops[1], t), t, exact=True)

    def _i_cvt(self, mods, ops, ins):
        self._nops(ops, 2)
        if len(mods) < 2:
            raise PtxError("cvt needs two types")
        dn, an = mods[-2], mods[-1]
        rnd = mods[:-2]
        self._mods(rnd, ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"), "cvt")
        if len(rnd) > 1:
            raise PtxError("several rounding modes")
        rnd = rnd[0] if rnd else None
        dt = _TYPES.get(dn) or _CVT_ONLY.get(dn)
        at = _TYPES.get(an) or _CVT_ONLY.get(an)
        if dt is None or at is None or dt[0] == "p" or at[0] == "p":
            raise PtxError("unsupported cvt types .%s.%s" % (dn, an))
        b16 = _TYPES["b16"]
        if _is_int(dt) and _is_int(at):
            if rnd:
                raise PtxError("rounding on an integer cvt")
            v = self._val(ops[1], at)
            return self._assign(ops[0], v if _int_fits(at, dt) else _wrap_expr(v, dt), dt, exact=True)
        if at[0] in ("h", "hb"):
            if rnd or dt[0] != "f":
                raise PtxError("unsupported cvt .%s.%s" % (dn, an))
            bits = self._val(ops[1], b16)
            if at[0] == "h":
                e = "%s[%s]" % (self._need("_F16_TABLE"), bits)
            else:
                e = "%s(%s << 16)" % (self._need("_b2f32"), bits)
            return self._assign(ops[0], e, dt, exact=True)
        if dt[0] in ("h", "hb"):
            if rnd != "rn" or at != _TYPES["f32"]:
                raise PtxError("only cvt.rn.f16.f32 / cvt.rn.bf16.f32 are supported")
            h = self._need("_f16_bits" if dt[0] == "h" else "_bf16_bits")
            return self._assign(ops[0], "%s(%s)" % (h, self._val(ops[1], at)), b16, exact=True)
        if dt[0] == "f" and at[0] == "f":
            v = self._val(ops[1], at)
            if dt[1] >= at[1]:
                if rnd:
                    raise PtxError("rounding on a widening cvt")
                return self._assign(ops[0], v, dt, exact=True)
            if rnd != "rn":
                raise PtxError("only .rn narrowing float cvt is supported")
            return self._assign(ops[0], v, dt)
        if dt[0] == "f":  # int -> float
            if rnd != "rn":
                raise PtxError("only .rn int-to-float cvt is supported")
            return self._assign(ops[0], "float(%s)" % self._val(ops[1], at), dt)
        # float -> int
        if rnd not in ("rni", "rzi", "rmi", "rpi"):
            raise PtxError("float-to-int cvt needs an integer rounding mode")
        e = "%s(%s, %r, %d, %s)" % (self._need("_f2i"), self._val(ops[1], at), rnd, dt[1], dt[0] == "s")
        return self._assign(ops[0], e, dt, exact=True)

    # -- integer and float arithmetic -----------------------------------------------------------
    def _arith_type(self, mods, ins, int_mods, float_mods):
        if not mods:
            raise PtxError("missing type")
        t = self._type(mods[-1])
        m = mods[:-1]
        if t[0] == "f":
            self._mods(m, float_mods, ins.op)
        elif _is_int(t):
            self._mods(m, int_mods, ins.op)
        else:
            raise PtxError("bad type .%s" % mods[-1])
        return t, m

    def _i_add(self, mods, ops, ins):
        return self._addsub(mods, ops, ins, "+")

    def _i_sub(self, mods, ops, ins):
        return self._addsub(mods, ops, ins, "-")

    def _addsub(self, mods, ops, ins, sign):
        self._nops(ops, 3)
        t, _ = self._arith_type(mods, ins, (), ("rn",))
        a, b = self._val(ops[1], t), self._val(ops[2], t)
        return self._assign(ops[0], "%s %s %s" % (a, sign, b), t)

    def _i_mul(self, mods, ops, ins):
        self._nops(ops, 3)
        t, m = self._arith_type(mods, ins, ("lo", "wide", "hi"), ("rn",))
        a, b = self._val(ops[1], t), self._val(ops[2], t)
        if t[0] == "f":
            return self._assign(ops[0], "%s * %s" % (a, b), t)
        if m == ["wide"]:
            if t[1] not in (16, 32):
                raise PtxError("mul.wide needs a 16/32-bit type")
            rt = (t[0], t[1] * 2)
            return self._assign(ops[0], "%s * %s" % (a, b), rt, exact=True)
        if m == ["hi"]:
            return self._assign(ops[0], "(%s * %s) >> %d" % (a, b, t[1]), t)
        if m != ["lo"]:
            raise PtxError("integer mul needs .lo, .hi or .wide")
        return self._assign(ops[0], "%s * %s" % (a, b), t)

    def _i_mad(self, mods, ops, ins):
        self._nops(ops, 4)
        t, m = self._arith_type(mods, ins, ("lo", "wide"), ("rn",))
        a, b = self._val(ops[1], t), self._val(ops[2], t)
        if t[0] == "f":
            raise PtxError("use fma for floats")
        if m == ["wide"]:
            if t[1] not in (16, 32):
                raise PtxError("mad.wide needs a 16/32-bit type")
            rt = (t[0], t[1] * 2)
            return self._assign(ops[0], "%s * %s + %s" % (a, b, self._val(ops[3], rt)), rt)
        if m != ["lo"]:
            raise PtxError("integer mad needs .lo or .wide")
        return self._assign(ops[0], "%s * %s + %s" % (a, b, self._val(ops[3], t)), t)

    def _i_fma(self, mods, ops, ins):
        self._nops(ops, 4)
        if len(mods) != 2 or mods[0] != "rn" or mods[1] not in ("f32", "f64"):
            raise PtxError("only fma.rn.f32 / fma.rn.f64 are supported")
        t = _TYPES[mods[1]]
        a, b, c = (self._val(o, t) for o in ops[1:])
        if t[1] == 64 and _fma64 is not None:
            return self._assign(ops[0], "%s(%s, %s, %s)" % (self._need("_fma64"), a, b, c), t)
        return self._assign(ops[0], "%s * %s + %s" % (a, b, c), t)

    def _i_div(self, mods, ops, ins):
        self._nops(ops, 3)
        t, m = self._arith_type(mods, ins, (), ("rn",))
        a, b = self._val(ops[1], t), self._val(ops[2], t)
        if t[0] == "f":
            if m != ["rn"]:
                raise PtxError("only div.rn is supported for floats")
            return self._assign(ops[0], "%s(%s, %s)" % (self._need("_fdiv"), a, b), t)
        if t[0] != "s" and _INT_RE.match(ops[2]) and int(b) != 0:
            return self._assign(ops[0], "%s // %s" % (a, b), t, exact=True)
        fn = self._need("_sdiv" if t[0] == "s" else "_udiv")
        return self._assign(ops[0], "%s(%s, %s)" % (fn, a, b), t)

    def _i_rem(self, mods, ops, ins):
        self._nops(ops, 3)
        t, _ = self._arith_type(mods, ins, (), ())
        if t[0] == "f":
            raise PtxError("rem on floats")
        a, b = self._val(ops[1], t), self._val(ops[2], t)
        if t[0] != "s" and _INT_RE.match(ops[2]) and int(b) != 0:
            return self._assign(ops[0], "%s %% %s" % (a, b), t, exact=True)
        fn = self._need("_srem" if t[0] == "s" else "_urem")
        return self._assign(ops[0], "%s(%s, %s)" % (fn, a, b), t, exact=True)

    def _minmax(self, mods, ops, ins, which):
        self._nops(ops, 3)
        t, _ = self._arith_type(mods, ins, (), ())
        a, b = self._val(ops[1], t), self._val(ops[2], t)
        if t[0] == "f":
            return self._assign(ops[0], "%s(%s, %s)" % (self._need("_f" + which), a, b), t, exact=True)
        cmp = "<" if which == "min" else ">"
        return self._assign(ops[0], "(%s if %s %s %s else %s)" % (a, a, cmp, b, b), t, exact=True)

    def _i_min(self, mods, ops, ins):
        return self._minmax(mods, ops, ins, "min")

    def _i_max(self, mods, ops, ins):
        return self._minmax(mods, ops, ins, "max")

    def _i_neg(self, mods, ops, ins):
        self._nops(ops, 2)
        t, _ = self._arith_type(mods, ins, (), ())
        if t[0] == "u" or t[0] == "b":
            raise PtxError("neg needs a signed or float type")
        return self._assign(ops[0], "-%s" % self._val(ops[1], t), t, exact=t[0] == "f")

    def _i_abs(self, mods, ops, ins):
        self._nops(ops, 2)
        t, _ = self._arith_type(mods, ins, (), ())
        if t[0] == "u" or t[0] == "b":
            raise PtxError("abs needs a signed or float type")
        return self._assign(ops[0], "abs(%s)" % self._val(ops[1], t), t, exact=t[0] == "f")

    def _i_sqrt(self, mods, ops, ins):
        self._nops(ops, 2)
        if len(mods) != 2 or mods[0] != "rn" or mods[1] not in ("f32", "f64"):
            raise PtxError("only sqrt.rn is supported")
        t = _TYPES[mods[1]]
        return self._assign(ops[0], "%s(%s)" % (self._need("_sqrt"), self._val(ops[1], t)), t)

    def _i_rcp(self, mods, ops, ins):
        self._nops(ops, 2)
        if len(mods) != 2 or mods[0] != "rn" or mods[1] not in ("f32", "f64"):
            raise PtxError("only rcp.rn is supported")
        t = _TYPES[mods[1]]
        return self._assign(ops[0], "%s(1.0, %s)" % (self._need("_fdiv"), self._val(ops[1], t)), t)

    # -- logic ------------------------------------------------------------------------------------
    def _logic(self, mods, ops, ins, pyop):
        self._nops(ops, 3)
        if len(mods) != 1:
            raise PtxError("bad logic op")
        t = self._type(mods[0])
        a, b = self._val(ops[1], t), self._val(ops[2], t)
        if t[0] == "p":
            e = {"&": "(%s and %s)", "|": "(%s or %s)", "^": "(%s != %s)"}[pyop] % (a, b)
            return self._assign(ops[0], e, t)
        if t[0] not in "bus":
            raise PtxError("logic op on .%s" % mods[0])
        return self._assign(ops[0], "%s %s %s" % (a, pyop, b), t)

    def _i_and(self, mods, ops, ins):
        return self._logic(mods, ops, ins, "&")

    def _i_or(self, mods, ops, ins):
        return self._logic(mods, ops, ins, "|")

    def _i_xor(self, mods, ops, ins):
        return self._logic(mods, ops, ins, "^")

    def _i_not(self, mods, ops, ins):
        self._nops(ops, 2)
        if len(mods) != 1:
            raise PtxError("bad not")
        t = self._type(mods[0])
        a = self._val(ops[1], t)
        if t[0] == "p":
            return self._assign(ops[0], "(not %s)" % a, t)
        if t[0] not in "bus":
            raise PtxError("not on .%s" % mods[0])
        return self._assign(ops[0], "~%s" % a, t)

    def _i_shl(self, mods, ops, ins):
        self._nops(ops, 3)
        if len(mods) != 1 or mods[0][0] != "b":
            raise PtxError("only shl.bN is supported")
        t = self._type(mods[0])
        a = self._val(ops[1], t)
        b = self._val(ops[2], _TYPES["u32"])
        if _INT_RE.match(ops[2]):
            e = "%s << %d" % (a, int(b)) if int(b) < t[1] else "0"
        else:
            e = "(%s << %s if %s < %d else 0)" % (a, b, b, t[1])
        return self._assign(ops[0], e, t)

    def _i_shr(self, mods, ops, ins):
        self._nops(ops, 3)
        if len(mods) != 1 or mods[0][0] not in "bus":
            raise PtxError("bad shr")
        t = self._type(mods[0])
        a = self._val(ops[1], t)
        b = self._val(ops[2], _TYPES["u32"])
        return self._assign(ops[0], "%s >> %s" % (a, b), t, exact=True)

    # -- comparisons --------------------------------------------------------------------------------
    _FCMP = {"eq": "(%s == %s)", "ne": "(%s < %s or %s > %s)", "lt": "(%s < %s)", "le": "(%s <= %s)",
             "gt": "(%s > %s)", "ge": "(%s >= %s)", "equ": "not (%s < %s or %s > %s)",
             "neu": "(%s != %s)", "ltu": "not (%s >= %s)", "leu": "not (%s > %s)",
             "gtu": "not (%s <= %s)", "geu": "not (%s < %s)", "num": "(%s == %s and %s == %s)",
             "nan": "(%s != %s or %s != %s)"}
    _ICMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "lo": "<", "ls": "<=",
             "hi": ">", "hs": ">="}

    def _compare(self, cmp, t, a, b):
        if t[0] == "f":
            if cmp not in self._FCMP:
                raise PtxError("unsupported float comparison .%s" % cmp)
            tpl = self._FCMP[cmp]
            if cmp in ("ne", "equ"):
                return tpl % (a, b, a, b)
            if cmp == "num":
                return tpl % (a, a, b, b)
            if cmp == "nan":
                return tpl % (a, a, b, b)
            return tpl % (a, b)
        if cmp not in self._ICMP:
            raise PtxError("unsupported integer comparison .%s" % cmp)
        if cmp in ("lo", "ls", "hi", "hs") and t[0] == "s":
            raise PtxError("unsigned comparison on a signed type")
        return "(%s %s %s)" % (a, self._ICMP[cmp], b)

    def _i_setp(self, mods, ops, ins):
        if len(mods) not in (2, 3):
            raise PtxError("bad setp")
        cmp, t = mods[0], self._type(mods[-1])
        if "|" in ops[0]:
            raise PtxError("setp with two destinations is not supported")
        if t[0] == "p":
            raise PtxError("setp on predicates")
        e = self._compare(cmp, t, self._val(ops[1], t), self._val(ops[2], t))
        pt = _TYPES["pred"]
        if len(mods) == 3:
            self._nops(ops, 4)
            c = self._val(ops[3], pt)
            bop = mods[1]
            if bop == "and":
                e = "(%s and %s)" % (e, c)
            elif bop == "or":
                e = "(%s or %s)" % (e, c)
            elif bop == "xor":
                e = "(%s != %s)" % (e, c)
            else:
                raise PtxError("unsupported setp combiner .%s" % bop)
        else:
            self._nops(ops, 3)
        return self._assign(ops[0], e, pt)

    def _i_selp(self, mods, ops, ins):
        self._nops(ops, 4)
        if len(mods) != 1:
            raise PtxError("bad selp")
        t = self._type(mods[0])
        a, b = self._val(ops[1], t), self._val(ops[2], t)
        c = self._val(ops[3], _TYPES["pred"])
        return self._assign(ops[0], "(%s if %s else %s)" % (a, c, b), t, exact=True)

    # -- memory -----------------------------------------------------------------------------------
    def _ldst_mods(self, mods, name):
        space = None
        vec = 1
        rest = list(mods)
        if rest and rest[0] in ("param", "global", "shared", "local", "const"):
            space = rest.pop(0)
        while rest and rest[0] in ("ca", "cg", "cs", "lu", "cv", "nc", "wb", "wt"):
            rest.pop(0)
        if rest and rest[0] in ("v2", "v4"):
            vec = int(rest.pop(0)[1])
        if len(rest) != 1:
            raise PtxError("unsupported %s modifiers %s" % (name, ".".join(mods)))
        if space in ("local", "const"):
            raise PtxError("%s space is not supported" % space)
        t = self._type(rest[0])
        if t[0] == "p":
            raise PtxError("%s of predicates" % name)
        return space, vec, t

    def _address(self, op, space):
        op = op.strip()
        if not (op.startswith("[") and op.endswith("]")):
            raise PtxError("bad address %r" % op)
        inner = op[1:-1].replace(" ", "")
        m = re.match(r"^([%\w$.]+?)(?:\+(-?\d+))?$", inner)
        if not m:
            raise PtxError("bad address %r" % op)
        base, off = m.group(1), int(m.group(2) or 0)
        if base in self.shared:
            if space != "shared":
                raise PtxError("shared symbol outside ld/st.shared")
            return str(self.shared[base] + off)
        if base.startswith("%"):
            at = _TYPES["u32"] if space == "shared" and self.regs.get(base) in ("u32", "s32", "b32") \
                else _TYPES["u64"]
            e = self._val(base, at)
            return e if off == 0 else "%s + %d" % (e, off)
        if _INT_RE.match(base):
            return str(_int_literal(base) + off)
        raise PtxError("bad address %r" % op)

    def _elem_regs(self, op, vec):
        op = op.strip()
        if vec == 1:
            if op.startswith("{"):
                raise PtxError("vector operand on a scalar access")
            return [op]
        if not (op.startswith("{") and op.endswith("}")):
            raise PtxError("vector access needs {...}")
        regs = [x.strip() for x in op[1:-1].split(",")]
        if len(regs) != vec:
            raise PtxError("vector length mismatch")
        return regs

    def _fmt(self, t, vec):
        return "<" + str(vec) + _STRUCT_CODE[t] if vec > 1 else "<" + _STRUCT_CODE[t]

    def _i_ld(self, mods, ops, ins):
        self._nops(ops, 2)
        space, vec, t = self._ldst_mods(mods, "ld")
        if space == "param":
            if vec != 1:
                raise PtxError("vector ld.param")
            m = re.match(r"^\[([\w$]+)\]$", ops[1].replace(" ", ""))
            names = [p for p, _ in self.params]
            if not m or m.group(1) not in names:
                raise PtxError("ld.param needs [<parameter>]")
            pt = _TYPES[dict(self.params)[m.group(1)]]
            if pt[1] != t[1]:
                raise PtxError("ld.param size mismatch")
            src = self._conv("_p_" + self._ident(m.group(1)), pt, t, m.group(1))
            return self._assign(ops[0], src, t, exact=True)
        regs = self._elem_regs(ops[0], vec)
        addr = self._address(ops[1], space)
        size = t[1] // 8 * vec
        fmt = self._fmt(t, vec)
        code = []
        if space == "shared":
            key = "_SU" + re.sub(r"\W", "_", fmt)
            self._need(key)
            code += ["_a = %s" % addr]
            if self.racecheck_slots:
                code += ["_v = %s(_a, %d, %s, _tl)" % (self._need("_sld"), size, key)]
            else:
                code += ["if _a & %d or _a < 0: %s(_a, %d)" % (size - 1 if size <= 16 else 15,
                                                               self._need("_salign"), size),
                         "_v = %s(%s, _a)" % (key, self._need("_S"))]
        else:
            key = "_GL" + re.sub(r"\W", "_", fmt)
            self._need(key)
            code += ["_v = %s(%s)" % (key, addr)]
        direct = all(r in self.regs and _TYPES[self.regs[r]] == t for r in regs)
        if direct:  # unpack straight into the registers
            assert code[-1].startswith("_v = ")
            code[-1] = ", ".join(self._reg(r) for r in regs) + ", = " + code[-1][len("_v = "):]
            return code
        for i, r in enumerate(regs):
            code += self._assign(r, "_v[%d]" % i, t, exact=True)
        return code

    def _i_prefetch(self, mods, ops, ins):
        # A hint with no effect on results: the address is checked for form and evaluated only.
        if mods != ["global", "L2"] or len(ops) != 1:
            raise PtxError("only `prefetch.global.L2 [addr]` is supported")
        return ["_ = %s" % self._address(ops[0], "global")]

    def _i_st(self, mods, ops, ins):
        self._nops(ops, 2)
        space, vec, t = self._ldst_mods(mods, "st")
        if space == "param":
            raise PtxError("st.param")
        addr = self._address(ops[0], space)
        vals = [self._val(r, t) for r in self._elem_regs(ops[1], vec)]
        size = t[1] // 8 * vec
        fmt = self._fmt(t, vec)
        if space == "shared":
            key = "_SP" + re.sub(r"\W", "_", fmt)
            self._need(key)
            code = ["_a = %s" % addr]
            if self.racecheck_slots:
                code += ["%s(_a, %d, %s, _tl, %s)" % (self._need("_sst"), size, key, ", ".join(vals))]
            else:
                code += ["if _a & %d or _a < 0: %s(_a, %d)" % (size - 1 if size <= 16 else 15,
                                                               self._need("_salign"), size),
                         "%s(%s, _a, %s)" % (key, self._need("_S"), ", ".join(vals))]
            return code
        key = "_GS" + re.sub(r"\W", "_", fmt)
        self._need(key)
        return ["%s(%s, %s)" % (key, addr, ", ".join(vals))]

    def _i_red(self, mods, ops, ins):
        # Atomic add into global memory (atomic split-K epilogues). Threads run one at a time
        # here, so a load, the add and the store (which rounds an f32 sum) are the atomic update.
        self._nops(ops, 2)
        if len(mods) != 3 or mods[:2] != ["global", "add"] or mods[2] not in ("f32", "f64"):
            raise PtxError("only red.global.add.f32 / .f64 are supported")
        t = _TYPES[mods[2]]
        addr = self._address(ops[0], "global")
        fmt = re.sub(r"\W", "_", self._fmt(t, 1))
        load, store = "_GL" + fmt, "_GS" + fmt
        self._need(load)
        self._need(store)
        return ["_a = %s" % addr, "%s(_a, %s(_a)[0] + %s)" % (store, load, self._val(ops[1], t))]

    def _i_atom(self, mods, ops, ins):
        # atom.global.add.u32 d, [a], b: d = the old value (the last-block counter of the LU column
        # kernel). One thread at a time here, so the load, add and store are the atomic update.
        # (.acq_rel.gpu: blocks run one after another and threads one at a time, so memory is
        # always ordered.)
        self._nops(ops, 3)
        if mods[:2] == ["acq_rel", "gpu"]:
            mods = mods[2:]
        if mods != ["global", "add", "u32"]:
            raise PtxError("only atom[.acq_rel.gpu].global.add.u32 is supported")
        t = _TYPES["u32"]
        addr = self._address(ops[1], "global")
        fmt = re.sub(r"\W", "_", self._fmt(t, 1))
        load, store = "_GL" + fmt, "_GS" + fmt
        self._need(load)
        self._need(store)
        return ["_a = %s" % addr, "_o = %s(_a)[0]" % load,
                "%s(_a, (_o + %s) & 0xffffffff)" % (store, self._val(ops[2], t))] + self._assign(ops[0], "_o", t)

    def _i_fence(self, mods, ops, ins):
        # Blocks run one after another and threads one at a time: memory is always ordered.
        if mods != ["acq_rel", "gpu"] or ops:
            raise PtxError("only fence.acq_rel.gpu is supported")
        return ["pass"]

    # Translation is shared by plain and race-checking launches: the race-checking variant is a
    # second translation (see _variant).
    racecheck_slots = False

    def _variant(self, racecheck):
        if not racecheck:
            return self
        v = getattr(self, "_rc", None)
        if v is None:
            v = Kernel.__new__(Kernel)
            v.text, v.source = self.text, self.source
            v.racecheck_slots = True
            v._parse(self.text, self.name)
            v._translate()
            self._rc = v
        return v

    def ptx_line(self, n):
        return self.ptx_lines[n - 1].strip() if 0 < n <= len(self.ptx_lines) else "?"


# ----------------------------------------------------------------------------------------------
# Memory

class Memory:
    """Global memory: 4 KiB pages created on demand, each byte with read/write permission bits.

    alloc() hands out blocks of address space (read-write unless told otherwise; lazy=True
    leaves them unmapped, for huge strided matrices whose touched parts are then made with
    fill() / set_perm()). Any access to an unmapped byte, misaligned, or without the permission
    faults. Addresses are plain integers from `base` up, so 64-bit offsets work."""

    R, W = 1, 2
    PAGE = 4096

    def __init__(self, size=None, base=0x100000):
        self.base = base
        self.top = base
        self.limit = None if size is None else base + size
        self.pages = {}

    def _pages(self, addr, nbytes):
        """(page data, page perms, offset in page, length) pieces covering [addr, addr + nbytes)."""
        P = self.PAGE
        while nbytes > 0:
            idx, off = divmod(addr, P)
            n = min(nbytes, P - off)
            pg = self.pages.get(idx)
            if pg is None:
                pg = self.pages[idx] = (bytearray(P), bytearray(P))
            yield pg[0], pg[1], off, n
            addr += n
            nbytes -= n

    def alloc(self, nbytes, align=256, fill=None, perm=R | W, lazy=False):
        addr = (self.top + align - 1) // align * align
        if self.limit is not None and addr + nbytes > self.limit:
            raise MemoryError("simulated memory exhausted")
        self.top = addr + nbytes + 64  # a gap: neighbouring allocations never touch
        if not lazy:
            self.set_perm(addr, nbytes, perm)
            if fill is not None:
                self.fill(addr, nbytes, fill)
        return addr

    def set_perm(self, addr, nbytes, mode):
        for _data, perm, off, n in self._pages(addr, nbytes):
            perm[off:off + n] = bytes([mode]) * n

    def fill(self, addr, nbytes, pattern):
        pattern = bytes(pattern)
        done = 0
        for data, _perm, off, n in self._pages(addr, nbytes):
            rep = (pattern * ((done + n) // len(pattern) + 2))
            start = done % len(pattern)
            data[off:off + n] = rep[start:start + n]
            done += n

    def write(self, addr, raw):
        done = 0
        for data, _perm, off, n in self._pages(addr, len(raw)):
            data[off:off + n] = raw[done:done + n]
            done += n

    def read_bytes(self, addr, nbytes):
        out = bytearray()
        for data, _perm, off, n in self._pages(addr, nbytes):
            out += data[off:off + n]
        return bytes(out)

    def pack(self, fmt, addr, *vals):
        self.write(addr, struct.pack(fmt, *vals))

    def unpack(self, fmt, addr):
        return struct.unpack(fmt, self.read_bytes(addr, struct.calcsize(fmt)))

    def _fault(self, what, a, size):
        pg = self.pages.get(a // self.PAGE)
        if a % min(size, 16):
            why = "misaligned"
        elif pg is None or not pg[1][a % self.PAGE]:
            why = "outside every allocation"
        else:
            why = "not %s" % ("readable" if what == "load" else "writable")
        raise SimFault("global %s of %d bytes at 0x%x: %s" % (what, size, a, why))

    def loader(self, fmt):
        st = struct.Struct(fmt)
        unpack, size = st.unpack_from, st.size
        align = min(size, 16) - 1
        pages, P, fault = self.pages, self.PAGE, self._fault

        def ld(a):
            pg = pages.get(a >> 12) if a >= 0 else None
            o = a & 4095
            if pg is None or a & align or not pg[1][o] & pg[1][o + size - 1] & 1:
                fault("load", a, size)
            return unpack(pg[0], o)
        assert P == 4096
        return ld

    def storer(self, fmt):
        st = struct.Struct(fmt)
        pack, size = st.pack_into, st.size
        align = min(size, 16) - 1
        pages, fault = self.pages, self._fault

        def st_(a, *v):
            pg = pages.get(a >> 12) if a >= 0 else None
            o = a & 4095
            if pg is None or a & align or not pg[1][o] & pg[1][o + size - 1] & 2:
                fault("store", a, size)
            pack(pg[0], o, *v)
        return st_


# ----------------------------------------------------------------------------------------------
# Launch

def _cpput(smem, a, raw):  # cp.async data into shared memory (bounds checked by the caller)
    smem[a:a + len(raw)] = raw


def _salign(a, size):
    raise SimFault("shared access of %d bytes at %d: %s" % (size, a, "negative" if a < 0 else "misaligned"))


class _RaceState:
    def __init__(self, size):
        words = (size + 1) // 2  # 16-bit units: b16 stores of neighbouring threads do not race
        self.w_ep = [-1] * words
        self.w_tid = [0] * words
        self.r_ep = [-1] * words
        self.r_tid = [0] * words
        self.epoch = 0


def _canon_param(t, v):
    kind, w = _TYPES[t]
    if kind == "f":
        v = float(v)
        return f32(v) if w == 32 else v
    if kind == "p":
        raise PtxError("predicate parameter")
    return _wrap_val(int(v), (kind, w))


def launch(kernel, params, mem, grid, block, racecheck=False, step_limit=1_000_000, strict_barriers=True):
    """Run `kernel` over grid (gx, gy, gz) of blocks of `block` (bx, by, bz) threads.

    params: list in declaration order, or dict by parameter name. Blocks run one after another;
    the threads of a block run round-robin between barriers (alternating direction each round)."""
    k = kernel._variant(racecheck)
    if not isinstance(params, dict):
        if len(params) != len(k.params):
            raise ValueError("%s takes %d parameters, got %d" % (k.name, len(k.params), len(params)))
        params = {name: v for (name, _), v in zip(k.params, params)}
    P = {name: _canon_param(t, params[name]) for name, t in k.params}
    grid = tuple(grid) + (1,) * (3 - len(grid))
    block = tuple(block) + (1,) * (3 - len(block))
    nthreads = block[0] * block[1] * block[2]
    smem = bytearray(b"\xff" * max(k.shared_size, 1))
    poison = bytes(smem)
    H = {"_mv": memoryview(bytearray(4)).cast("f"), "_S": smem, "_salign": _salign, "_limit": step_limit,
         "_f2b32": _f2b32, "_b2f32": _b2f32, "_f2b64": _f2b64, "_b2f64": _b2f64, "_NAN": math.nan,
         "_INF": math.inf, "_F16_TABLE": _F16_TABLE, "_f16_bits": f16_bits, "_bf16_bits": bf16_bits,
         "_fdiv": _fdiv, "_fmin": _fmin, "_fmax": _fmax, "_sqrt": _sqrt, "_sdiv": _sdiv, "_srem": _srem,
         "_udiv": _udiv, "_urem": _urem, "_f2i": _f2i, "_fma64": _fma64, "_XI": {}, "_XO": {},
         "_cpput": _cpput}
    race = _RaceState(len(smem)) if racecheck else None
    for h in k._helpers:
        if h in H:
            continue
        kind = h[:3]
        fmt = "<" + h[4:]
        if h == "_GL_part":  # a cp.async's first src-size bytes (checked like any global load)
            H[h] = lambda addr, nbytes: mem.loader("<%ds" % nbytes)(addr)[0]
        elif kind == "_GL":
            H[h] = mem.loader(fmt)
        elif kind == "_GS":
            H[h] = mem.storer(fmt)
        elif kind == "_SU":
            H[h] = struct.Struct(fmt).unpack_from
        elif kind == "_SP":
            H[h] = struct.Struct(fmt).pack_into
        elif h == "_sld":
            H[h] = _make_race_ld(smem, race)
        elif h == "_sst":
            H[h] = _make_race_st(smem, race)
        else:
            raise PtxError("internal: no helper %s" % h)
    thread_fn = k._factory(P, H)
    tids = [(x, y, z) for z in range(block[2]) for y in range(block[1]) for x in range(block[0])]
    for cz in range(grid[2]):
        for cy in range(grid[1]):
            for cx in range(grid[0]):
                smem[:] = poison
                if race:
                    race.__init__(len(smem))
                gens = [thread_fn(t[0], t[1], t[2], block[0], block[1], block[2], cx, cy, cz,
                                  grid[0], grid[1], grid[2], n) for n, t in enumerate(tids)]
                live = list(range(nthreads))
                rnd = 0
                while live:
                    order = live if rnd % 2 == 0 else live[::-1]
                    waiting, at = [], set()
                    for n in order:
                        try:
                            at.add(next(gens[n]))
                            waiting.append(n)
                        except StopIteration:
                            pass
                        except SimFault as e:
                            raise _located(k, e, (cx, cy, cz), tids[n]) from None
                        except (ArithmeticError, NameError, struct.error, IndexError, TypeError,
                                ValueError) as e:
                            raise _located(k, SimFault("%s: %s" % (type(e).__name__, e)), (cx, cy, cz),
                                           tids[n], e) from None
                    if strict_barriers and waiting and (len(waiting) != len(live) or len(at) != 1):
                        raise SimFault("%s block %s: barrier divergence (%d of %d threads at barrier(s) on "
                                       "PTX line(s) %s)" % (k.name, (cx, cy, cz), len(waiting), len(live),
                                                            sorted(at)))
                    exchange = len(at) == 1 and next(iter(at)) in k.mma_lines
                    if exchange:
                        if len(waiting) != nthreads:
                            raise SimFault("%s block %s: mma on PTX line %d with %d of %d threads" %
                                           (k.name, (cx, cy, cz), next(iter(at)), len(waiting), nthreads))
                        _warp_mma(k.mma_lines[next(iter(at))], H["_XI"], H["_XO"], nthreads)
                    live = sorted(waiting)
                    rnd += 1
                    if race and not exchange:  # an mma orders nothing between warps
                        race.epoch += 1


def _warp_mma(key, xi, xo, nthreads):
    """Every warp's mma: xi[thread] = (a regs, b regs, c regs) -> xo[thread] = d regs.

    Lane 4g + q. m8n8k4: A[g][q], B[q][g], C/D[g][2q + e]. m16n8k8 (f64): A registers (row g |
    g + 8, k q | q + 4), B registers (k q | q + 4, column g), C/D as m16n8k16. m16n8k16: A registers (row g | g + 8,
    k 2q + {0,1} | + 8), B registers (k 2q + {0,1} | + 8, column g), C/D (row g | g + 8, column
    2q + e); the lower-indexed element of a pair is in the low 16 bits."""
    if nthreads % 32:
        raise SimFault("mma with a partial warp (%d threads)" % nthreads)
    shape = key[0]
    half = f16_value if key[2] == "f16" else bf16_value
    for w in range(0, nthreads, 32):
        L = [xi[w + l] for l in range(32)]
        if shape == "m8n8k4":
            A = [[L[4 * i + kk][0][0] for kk in range(4)] for i in range(8)]
            B = [[L[4 * j + kk][1][0] for j in range(8)] for kk in range(4)]
            for l in range(32):
                g, q = divmod(l, 4)
                out = []
                for e in range(2):
                    acc = L[l][2][e]
                    for kk in range(4):
                        acc = _fma64(A[g][kk], B[kk][2 * q + e], acc) if _fma64 else A[g][kk] * B[kk][2 * q + e] + acc
                    out.append(acc)
                xo[w + l] = tuple(out)
            continue
        if shape == "m16n8k8":
            A = [[0.0] * 8 for _ in range(16)]
            B = [[0.0] * 8 for _ in range(8)]
            for l in range(32):
                g, q = divmod(l, 4)
                for r in range(4):
                    A[g + 8 * (r & 1)][q + 4 * (r >> 1)] = L[l][0][r]
                for r in range(2):
                    B[q + 4 * r][g] = L[l][1][r]
            for l in range(32):
                g, q = divmod(l, 4)
                out = []
                for r in range(4):
                    row, col = g + 8 * (r >> 1), 2 * q + (r & 1)
                    acc = L[l][2][r]
                    for kk in range(8):
                        acc = _fma64(A[row][kk], B[kk][col], acc) if _fma64 else A[row][kk] * B[kk][col] + acc
                    out.append(acc)
                xo[w + l] = tuple(out)
            continue
        A = [[0.0] * 16 for _ in range(16)]
        B = [[0.0] * 8 for _ in range(16)]
        for l in range(32):
            g, q = divmod(l, 4)
            a, b = L[l][0], L[l][1]
            for r in range(4):
                row, col = g + 8 * (r & 1), 2 * q + 8 * (r >> 1)
                A[row][col], A[row][col + 1] = half(a[r] & 0xFFFF), half(a[r] >> 16)
            for r in range(2):
                kk = 2 * q + 8 * r
                B[kk][g], B[kk + 1][g] = half(b[r] & 0xFFFF), half(b[r] >> 16)
        for l in range(32):
            g, q = divmod(l, 4)
            out = []
            for r in range(4):
                row, col = g + 8 * (r >> 1), 2 * q + (r & 1)
                terms = [L[l][2][r]] + [A[row][kk] * B[kk][col] for kk in range(16)]
                try:
                    s = math.fsum(terms)
                except (ValueError, OverflowError):  # inf - inf: NaN, as on the hardware
                    s = sum(terms)
                out.append(f32(s))
            xo[w + l] = tuple(out)
    xi.clear()


def _located(k, e, block, tid, orig=None):
    tb = (orig or e).__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == k._filename:
            line = k.linemap.get(tb.tb_lineno, line)
        tb = tb.tb_next
    where = "PTX line %s `%s`" % (line, k.ptx_line(line)) if line else "unknown PTX line"
    msg = str(e)
    if orig is not None and isinstance(orig, NameError):
        msg = "read of an uninitialised register (%s)" % orig
    f = SimFault("%s block %s thread %s, %s: %s" % (k.name, block, tid, where, msg))
    f.ptx_line = line
    return f


def _make_race_ld(smem, race):
    n = len(smem)

    def sld(a, size, unpack, tl):
        if a < 0 or a & (min(size, 16) - 1) or a + size > n:
            raise SimFault("shared load of %d bytes at %d out of range or misaligned" % (size, a))
        ep = race.epoch
        w_ep, w_tid, r_ep, r_tid = race.w_ep, race.w_tid, race.r_ep, race.r_tid
        for w in range(a >> 1, (a + size + 1) >> 1):
            if w_ep[w] == ep and w_tid[w] != tl:
                raise SimFault("shared race: thread %d reads byte %d written by thread %d since the "
                               "last barrier" % (tl, 2 * w, w_tid[w]))
            if r_ep[w] == ep:
                if r_tid[w] != tl:
                    r_tid[w] = -1
            else:
                r_ep[w] = ep
                r_tid[w] = tl
        return unpack(smem, a)
    return sld


def _make_race_st(smem, race):
    n = len(smem)

    def sst(a, size, pack, tl, *vals):
        if a < 0 or a & (min(size, 16) - 1) or a + size > n:
            raise SimFault("shared store of %d bytes at %d out of range or misaligned" % (size, a))
        ep = race.epoch
        w_ep, w_tid, r_ep, r_tid = race.w_ep, race.w_tid, race.r_ep, race.r_tid
        for w in range(a >> 1, (a + size + 1) >> 1):
            if w_ep[w] == ep and w_tid[w] != tl:
                raise SimFault("shared race: threads %d and %d both write byte %d between barriers"
                               % (w_tid[w], tl, 2 * w))
            if r_ep[w] == ep and r_tid[w] != tl:
                raise SimFault("shared race: thread %d writes byte %d read by thread %s since the "
                               "last barrier" % (tl, 2 * w, r_tid[w] if r_tid[w] >= 0 else "(several)"))
            w_ep[w] = ep
            w_tid[w] = tl
        pack(smem, a, *vals)
    return sst


if __name__ == "__main__":  # translate the given PTX files and print the Python (debug aid)
    for path in sys.argv[1:]:
        with open(path) as fh:
            print(Kernel(fh.read(), source=path).py_source)
